#!/usr/bin/env node
// `alerta` for a global install of the whole checkout (`npm install -g .`): the client is cli/.
import '../cli/alerta.js';
