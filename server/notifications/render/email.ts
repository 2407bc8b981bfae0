import { factsOf, summaryOf, titleOf, type Message } from './common.ts';

export interface Mail {
  subject: string;
  text: string;
  html: string;
  /** From the delivery id: the same on a message sent again, so mail systems can drop the copy. */
  messageId: string;
}

const html = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * An e-mail: the subject says what happened, the body lists every alert (a digest lists them all)
 * with its facts, text and a link to its page, in plain text and HTML.
 */
export function renderMail(m: Message): Mail {
  const subject = `[alertwall] ${summaryOf(m)}`;
  const text: string[] = [];
  const rows: string[] = [];
  for (const item of m.items) {
    const a = item.alert;
    const link = m.links.alert(a.id);
    const title = titleOf(item);
    text.push(title, ...factsOf(a).map(([k, v]) => `  ${k}: ${v}`));
    if (a.text) text.push(`  ${a.text}`);
    if (link) text.push(`  ${link}`);
    text.push('');
    const facts = factsOf(a)
      .map(([k, v]) => `<tr><th align="left">${html(k)}</th><td>${html(v)}</td></tr>`)
      .join('');
    rows.push(
      `<h3>${link ? `<a href="${html(link)}">${html(title)}</a>` : html(title)}</h3>` +
        (a.text ? `<p>${html(a.text)}</p>` : '') +
        `<table>${facts}</table>`,
    );
  }
  if (m.links.console) text.push(`All alerts: ${m.links.console}`);
  const footer = m.links.console ? `<p><a href="${html(m.links.console)}">All alerts</a></p>` : '';
  return {
    subject,
    messageId: `<${m.deliveryId.replace(/[^A-Za-z0-9.-]/g, '.')}@alertwall>`,
    text: text.join('\n'),
    html: `<!doctype html><html><body><h2>${html(summaryOf(m))}</h2>${rows.join('<hr>')}${footer}</body></html>`,
  };
}
