import { makeError, type SurfacerError } from '../../errors/index.ts';
import { surfaceToast, type Block, type FieldBlock, type Surface } from '../../ui-ir/index.ts';
import { ComponentIds, contextFieldNames, INGRESS_CONTEXT_KEYS, sliderBounds, viewKey } from '../a2ui-shared/index.ts';
import type { A2uiComponentType } from './catalogue.ts';
import { guardA2uiString, plainText } from './text.ts';
import type { A2uiAction, A2uiComponent } from './types.ts';

/**
 * IR view → one closed component set, root first, every component reachable from the root.
 *
 *   root  Card → body Column [title Text(h1), …blocks, toast Text(caption)?, actions Row?]
 *
 * heading level n → Text h(n+1); text → Text body|caption; divider → Divider; image → Image
 * (http/https only); value → Row [label Text, value Text bound to /view/<key>]; group → Column
 * or Row (a titled row group is Column [title Text(h4), Row]); upload → Text with the block's
 * fallback (A2UI has no file control). Fields bind `/draft/<name>`:
 * text→TextField shortText, textarea→longText, number→number, secret→obscured, date→date,
 * url/email→shortText + validationRegexp, tags→shortText ("a, b"), datetime/time→DateTimeInput,
 * checkbox→CheckBox, select→MultipleChoice (maxAllowedSelections 1), multiselect→MultipleChoice,
 * slider→Slider (both bounds always). A field with help text is Column [input, help caption].
 */
export interface ComponentBuild {
  components: A2uiComponent[];
  rootId: string;
  warnings: SurfacerError[];
  /** Errors of the soft_fail kind: what was left out. */
  dropped: SurfacerError[];
}

export interface ComponentOptions {
  allowedActions?: ReadonlySet<string> | undefined;
}

/** Context keys owned by ingress; a field with one of these names is not sent with actions. */
export const RESERVED_CONTEXT_KEYS: ReadonlySet<string> = new Set(INGRESS_CONTEXT_KEYS.keys());

const URL_PATTERN = '^https?://\\S+$';
const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
const TEXT_TYPE: Partial<Record<FieldBlock['control'], string>> = {
  text: 'shortText', textarea: 'longText', number: 'number', secret: 'obscured', date: 'date',
  url: 'shortText', email: 'shortText', tags: 'shortText',
};

/**
 * `{ [type]: props }` as a literal per type: a computed key costs a runtime call per component,
 * a literal is a preshaped object. Same single key, so the same JSON.
 */
function wrap(type: A2uiComponentType, props: Record<string, unknown>): A2uiComponent['component'] {
  switch (type) {
    case 'Text': return { Text: props };
    case 'Image': return { Image: props };
    case 'Icon': return { Icon: props };
    case 'Video': return { Video: props };
    case 'AudioPlayer': return { AudioPlayer: props };
    case 'Row': return { Row: props };
    case 'Column': return { Column: props };
    case 'List': return { List: props };
    case 'Card': return { Card: props };
    case 'Tabs': return { Tabs: props };
    case 'Divider': return { Divider: props };
    case 'Modal': return { Modal: props };
    case 'Button': return { Button: props };
    case 'CheckBox': return { CheckBox: props };
    case 'TextField': return { TextField: props };
    case 'DateTimeInput': return { DateTimeInput: props };
    case 'MultipleChoice': return { MultipleChoice: props };
    case 'Slider': return { Slider: props };
  }
}

class Builder {
  readonly components: A2uiComponent[] = [];
  readonly warnings: SurfacerError[] = [];
  readonly dropped: SurfacerError[] = [];
  private fieldNames: string[] = [];
  private readonly ids: ComponentIds;

  constructor(private readonly surface: Surface, private readonly options: ComponentOptions) {
    this.ids = new ComponentIds(surface.id);
  }

  private base(part: string): string {
    return this.ids.base(part);
  }

  /**
   * Adds a component `<base>.<Type>`. Role suffixes (`.label`) and type names are constant safe
   * words, so appending them equals `componentId(surfaceId, [...parts, role], type)`.
   */
  private add(base: string, type: A2uiComponentType, props: Record<string, unknown>): string {
    const id = `${base}.${type}`;
    this.components.push({ id, component: wrap(type, props) });
    return id;
  }

  private text(base: string, text: string, usageHint: string): string {
    return this.add(base, 'Text', { text: { literalString: plainText(text) }, usageHint });
  }

  build(): ComponentBuild {
    const { surface } = this;
    // Field names first: every button's context lists them all.
    this.fieldNames = contextFieldNames(surface.view.blocks, INGRESS_CONTEXT_KEYS, this.warnings);

    const rootProps: Record<string, unknown> = {};
    const bodyProps: Record<string, unknown> = {};
    const root = this.add(this.base('root'), 'Card', rootProps);
    const body = this.add(this.base('body'), 'Column', bodyProps);
    const children = [this.text(this.base('title'), surface.view.title, 'h1')];
    this.blocks(surface.view.blocks, [], children);
    if (surfaceToast(surface) !== undefined) {
      children.push(this.add(this.base('toast'), 'Text', { text: { path: '/ui/toast/text' }, usageHint: 'caption' }));
    }
    const buttons = this.actions();
    if (buttons.length > 0) {
      children.push(this.add(this.base('actions'), 'Row', { children: { explicitList: buttons }, distribution: 'end' }));
    }
    rootProps.child = body;
    bodyProps.children = { explicitList: children };
    return { components: this.components, rootId: root, warnings: this.warnings, dropped: this.dropped };
  }

  /** Appends the ids of `blocks` (at `prefix`) to `ids`. */
  private blocks(blocks: readonly Block[], prefix: readonly number[], ids: string[]): string[] {
    const depth = prefix.length;
    for (let i = 0; i < blocks.length; i += 1) {
      const indexPath = new Array<number>(depth + 1);
      for (let k = 0; k < depth; k += 1) indexPath[k] = prefix[k]!;
      indexPath[depth] = i;
      const id = this.block(blocks[i]!, indexPath);
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  private block(block: Block, indexPath: number[]): string | undefined {
    const key = this.ids.unique(block, indexPath, this.warnings);
    switch (block.kind) {
      case 'heading': return this.text(key, block.text, `h${Math.min(block.level + 1, 5)}`);
      case 'text': return this.text(key, block.text, block.tone);
      case 'divider': return this.add(key, 'Divider', {});
      case 'image': {
        if (!/^https?:\/\//i.test(block.url)) {
          this.dropped.push(makeError('A2UI_S2C_URL_NOT_ALLOWED', `image ${key} has a non-http(s) URL`));
          return block.alt === '' ? undefined : this.text(key, block.alt, 'body');
        }
        const props: Record<string, unknown> = { url: { literalString: block.url }, fit: 'contain' };
        if (block.alt !== '') props.altText = { literalString: guardA2uiString(block.alt) };
        return this.add(key, 'Image', props);
      }
      case 'value': {
        const label = this.text(`${key}.label`, block.label, 'caption');
        const value = this.add(`${key}.value`, 'Text', { text: { path: `/view/${viewKey(indexPath)}` }, usageHint: 'body' });
        return this.add(key, 'Row', { children: { explicitList: [label, value] }, alignment: 'center' });
      }
      case 'upload': {
        this.warnings.push(makeError('COMPILER_A2UI_UPLOAD_FALLBACK', `upload "${block.name}" shown as text`));
        return this.text(key, block.fallback !== '' ? block.fallback : `${block.label}: file upload is not available here.`, 'body');
      }
      case 'group': {
        if (block.title === undefined || block.title === '') {
          const items = this.blocks(block.blocks, indexPath, []);
          return this.add(key, block.layout === 'row' ? 'Row' : 'Column', { children: { explicitList: items } });
        }
        // The title Text comes after the items' components, as before: component order is output.
        if (block.layout === 'column') {
          const list: string[] = [''];
          this.blocks(block.blocks, indexPath, list);
          list[0] = this.text(`${key}.title`, block.title, 'h4');
          return this.add(key, 'Column', { children: { explicitList: list } });
        }
        const items = this.blocks(block.blocks, indexPath, []);
        const title = this.text(`${key}.title`, block.title, 'h4');
        const row = this.add(`${key}.items`, 'Row', { children: { explicitList: items } });
        return this.add(key, 'Column', { children: { explicitList: [title, row] } });
      }
      case 'field': return this.field(block, key);
    }
  }

  private field(f: FieldBlock, key: string): string {
    const path = `/draft/${f.name}`;
    const label = guardA2uiString(f.required ? `${f.label} *` : f.label);
    let input: string;
    switch (f.control) {
      case 'checkbox':
        input = this.add(key, 'CheckBox', { label: { literalString: label }, value: { path } });
        break;
      case 'datetime':
      case 'time':
        input = this.add(key, 'DateTimeInput', { value: { path }, enableDate: f.control === 'datetime', enableTime: true });
        break;
      case 'select':
      case 'multiselect': {
        const props: Record<string, unknown> = {
          selections: { path },
          options: (f.options ?? []).map((o) => ({ label: { literalString: guardA2uiString(o.label) }, value: guardA2uiString(o.value) })),
        };
        if (f.control === 'select') props.maxAllowedSelections = 1;
        input = this.add(key, 'MultipleChoice', props);
        break;
      }
      case 'slider': {
        const { min, max } = sliderBounds(f.min, f.max);
        input = this.add(key, 'Slider', { label: { literalString: label }, value: { path }, minValue: min, maxValue: max });
        break;
      }
      default: {
        const props: Record<string, unknown> = { label: { literalString: label }, text: { path }, textFieldType: TEXT_TYPE[f.control] ?? 'shortText' };
        const pattern = f.control === 'url' ? URL_PATTERN
          : f.control === 'email' ? EMAIL_PATTERN
            : f.control === 'date' ? DATE_PATTERN
              : f.maxLength !== undefined && f.control !== 'number' ? `^[\\s\\S]{0,${f.maxLength}}$` : undefined;
        if (pattern !== undefined) props.validationRegexp = pattern;
        input = this.add(key, 'TextField', props);
      }
    }
    // DateTimeInput and MultipleChoice have no label property: the label goes above them.
    const needsLabel = f.control === 'datetime' || f.control === 'time' || f.control === 'select' || f.control === 'multiselect';
    const hasHelp = f.help !== undefined && f.help !== '';
    if (!needsLabel && !hasHelp) return input;
    const parts: string[] = [];
    if (needsLabel) parts.push(this.text(`${key}.label`, f.required ? `${f.label} *` : f.label, 'caption'));
    parts.push(input);
    if (hasHelp) parts.push(this.text(`${key}.help`, f.help!, 'caption'));
    return this.add(key, 'Column', { children: { explicitList: parts } });
  }

  private actions(): string[] {
    const { surface, options } = this;
    const ids: string[] = [];
    const fieldContext = this.fieldNames.map((name) => ({ key: name, value: { path: `/draft/${name}` } }));
    const nonce = { key: 'nonce', value: { literalString: surface.nonce } };
    const rev = { key: 'rev', value: { literalString: String(surface.rev) } };
    surface.view.actions.forEach((action, i) => {
      if (options.allowedActions !== undefined && !options.allowedActions.has(action.name)) {
        this.dropped.push(makeError('A2UI_S2C_ACTION_NOT_ALLOWED', `action "${action.name}" is not allowlisted; its button was left out`,
          { pointer: `/view/actions/${i}` }));
        return;
      }
      const key = this.base(`a${i}-${action.name}`);
      const label = this.text(`${key}.label`, action.label, 'body');
      // Entries are shared between buttons: messages are plain immutable data.
      const context: NonNullable<A2uiAction['context']> = fieldContext.slice();
      context.push(nonce, rev);
      const act: A2uiAction = { name: action.name, context };
      ids.push(this.add(key, 'Button', { child: label, primary: action.primary, action: act }));
    });
    return ids;
  }
}

export function buildComponents(surface: Surface, options: ComponentOptions = {}): ComponentBuild {
  return new Builder(surface, options).build();
}
