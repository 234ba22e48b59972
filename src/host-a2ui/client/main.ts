/// <reference lib="dom" />
// Entry of the v0.8 page's bundle for an app without components of its own (client-bundle.ts
// generates the entry of an app's bundle: its element modules, then startV08Page with them).
import { startV08Page } from './page-v08.ts';

startV08Page();
