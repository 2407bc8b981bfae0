-- Customers own notification settings (docs/notifications.md, "Customers"): a receiver or rule with
-- a customer is seen and managed only by that customer's users (and admins); an owned rule matches
-- only that customer's alerts and names only that customer's receivers. Null: global, as every
-- receiver and rule made before this was, managed by admins and invisible to customer users.
ALTER TABLE notification_receivers ADD COLUMN customer text;
ALTER TABLE notification_rules ADD COLUMN owner text;

-- Secret settings are sealed (AES-256-GCM, {"$enc": "v1:…"}) by the server at start-up and on every
-- write: a migration has no key, so values stored in plain text before are sealed by the first
-- start after this migration (notifications/sealed-settings.ts).
COMMENT ON COLUMN notification_receivers.settings IS
  'receiver settings; secret fields sealed as {"$enc": "v1:<key id>:<iv>:<ciphertext>:<tag>"}';
