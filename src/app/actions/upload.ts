import { commitSurface, HTTP_URL, walkBlocks, type ActionDefinition } from '../../index.ts';
import { uploadContextSchema } from '../context.ts';
import { inputInvalid } from './common.ts';

// A bare file name: no path separators, no control or shell-ish characters, not "." or "..".
const FILE_NAME = /^(?!\.{1,2}$)[^/\\\u0000-\u001f<>:"|?*]{1,255}$/;

/**
 * upload.submit records what the host says it received: a file name or an http(s) link. The
 * bytes never pass through the IR; a host with a file control stores the file and submits its
 * name or URL, a host without one lets the user paste a link.
 */
export const uploadSubmitAction: ActionDefinition = {
  name: 'upload.submit',
  description: 'Record the file name or link the user provided for an upload request.',
  contextSchema: (surface) => uploadContextSchema(surface.view),
  handle(ir, surface, context, draw) {
    const names: string[] = [];
    walkBlocks(surface.view.blocks, (b) => { if (b.kind === 'upload') names.push(b.name); });
    const name = names[0];
    if (name === undefined) return inputInvalid([{ name: '', rule: 'required', message: 'This panel does not take a file.' }]);
    const raw = Object.hasOwn(context, name) && typeof context[name] === 'string' ? context[name] : '';
    const value = raw.trim();
    if (value === '') return inputInvalid([{ name, rule: 'required', message: 'Choose a file or paste a link first.' }]);
    if (/^[a-z][a-z0-9+.-]*:/i.test(value) ? !HTTP_URL.test(value) : !FILE_NAME.test(value)) {
      return inputInvalid([{ name, rule: 'pattern', message: 'That is neither a file name nor an http(s) link.' }]);
    }
    const committed = commitSurface(ir, surface.id, { draft: { [name]: raw }, committed: { [name]: value } }, draw);
    return committed.ok ? { ok: true, ir: committed.ir, toast: { level: 'success', text: `Recorded ${value.slice(0, 200)}` } } : committed;
  },
};
