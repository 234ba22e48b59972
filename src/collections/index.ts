// Collections any app can use: the generic list directives (show a list, add / update / remove
// items by key) and the generic per-item actions (choose, remove). The IR's list block, the
// compilers and the ingress item-key check are infrastructure of their own folders; this folder
// is what an app registers to let its model show lists. docs/a2ui.md "Collections" has the rules.
export { checkedItem, listChooseAction, listRemoveAction, LIST_ACTIONS } from './actions.ts';
export { createListDirectives } from './directives.ts';
export type { ListDirectiveOptions } from './directives.ts';
export { createComponentDirective } from './component-directive.ts';
export type { ComponentDirectiveOptions, PlaceableComponent, ShowComponentPayload } from './component-directive.ts';
export { ITEM_KEY_FIELD, itemLabel, ListItemInput } from './items.ts';
export { createTableDirective, TABLE_ACTIONS, tablePageAction, tableSortAction } from './tables.ts';
export type { ShowTablePayload, TableDirectiveOptions } from './tables.ts';
