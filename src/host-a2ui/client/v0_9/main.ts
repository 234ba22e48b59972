/// <reference lib="dom" />
// Entry of the v0.9 page's bundle for an app without components of its own (client-bundle.ts
// generates the entry of an app's bundle: its element modules, then startV09Page with them).
import { startV09Page } from './page.ts';

startV09Page();
