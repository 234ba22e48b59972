import { makeError, type SurfacerError } from '../errors/index.ts';
import { collectionBlocks, findSurface, getAt, listItems, pathTokens, type ConversationIr } from '../ui-ir/index.ts';
import { jsonBytes, type DirectiveLimits } from './limits.ts';

/**
 * The first budget a list's items break: more than `maxListItems` items in the list (a table's
 * `maxTableRows`: pass `table`), or one item's JSON over `maxListItemBytes`. `pointer` names the
 * items in the payload, if any.
 */
export function itemBudget(items: readonly unknown[], total: number, limits: DirectiveLimits, pointer?: string, table = false): SurfacerError | undefined {
  const max = table ? limits.maxTableRows : limits.maxListItems;
  if (total > max) {
    return makeError('DIRECTIVE_BUDGET_EXCEEDED', `the ${table ? 'table' : 'list'} would hold ${total} ${table ? 'rows' : 'items'}; the limit is ${max}`,
      pointer === undefined ? {} : { pointer });
  }
  for (let i = 0; i < items.length; i += 1) {
    const bytes = jsonBytes(items[i]) ?? Infinity;
    if (bytes > limits.maxListItemBytes) {
      return makeError('DIRECTIVE_BUDGET_EXCEEDED', `item ${i} is ${bytes} bytes; the limit is ${limits.maxListItemBytes}`,
        pointer === undefined ? {} : { pointer: `${pointer}/${i}` });
    }
  }
  return undefined;
}

/**
 * The list budgets, held for whatever a directive did: every list whose stored array the
 * directive replaced (any directive of any app — a `ui.patch` into a list's path too) must stay
 * within them after it. Lists it left alone are not judged, so an app's own larger list does not
 * block unrelated directives. The list directives check their payloads first, with pointers.
 */
export function listBudgetError(before: ConversationIr, after: ConversationIr, limits: DirectiveLimits): SurfacerError | undefined {
  for (const surface of after.surfaces) {
    const old = findSurface(before, surface.id);
    if (old === surface || surface.lifecycle === 'deleted') continue;
    for (const block of collectionBlocks(surface.view)) {
      if (block.kind === 'component') continue;
      const tokens = pathTokens(block.path);
      if (old !== undefined && getAt(old.data, tokens) === getAt(surface.data, tokens)) continue;
      const { items } = listItems(surface, block);
      const over = itemBudget(items.map((item) => item.value), items.length, limits, undefined, block.kind === 'table');
      if (over !== undefined) return { ...over, technical_detail: `${block.kind} "${block.name}" of surface "${surface.id}": ${over.technical_detail}` };
    }
  }
  return undefined;
}
