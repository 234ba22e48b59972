import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ComponentDefinitionError, componentClass, componentCssProblem, defineComponent, MAX_COMPONENT_CSS,
} from '../../src/app-kit/index.ts';
import { PortraitCard } from '../../src/app/components/index.ts';
import { BarChart, TicketTable } from '../../examples/support-desk/components.ts';

/*
 * A component's stylesheet for the htmx page (ComponentDefinition.css): every rule must name the
 * component's own class, so that one component cannot restyle the page or another component.
 */
const define = (css: string) => defineComponent({
  name: 'TicketTable', description: 'a table', props: z.object({}), html: '<table class="ticket-table"></table>', css, fallback: () => [],
});

describe('componentClass', () => {
  it('is the component name in kebab case', () => {
    expect(componentClass('PortraitCard')).toBe('portrait-card');
    expect(componentClass('BarChart')).toBe('bar-chart');
    expect(componentClass('HTTPStatusBoard')).toBe('http-status-board');
    expect(componentClass('Gauge2')).toBe('gauge2');
  });
});

describe('componentCssProblem', () => {
  const ok = (css: string) => expect(componentCssProblem(css, 'ticket-table'), css).toBeUndefined();
  const refused = (css: string, why: RegExp) => expect(componentCssProblem(css, 'ticket-table'), css).toMatch(why);

  it('accepts rules that name the class, its elements and modifiers, in groups and keyframes named after it', () => {
    ok('.ticket-table { color: red; }');
    ok('.ticket-table__row:hover, .ticket-table--dense td { padding: 0 }');
    ok('.ticket-table td > .button, .app-component .ticket-table th { margin: 0 }');
    ok('@media (max-width: 30rem) { .ticket-table__customer { display: none } @supports (display: grid) { .ticket-table { display: grid } } }');
    ok('@keyframes ticket-table-fade { from { opacity: 0 } to { opacity: 1 } } .ticket-table { animation: ticket-table-fade 1s }');
    ok('/* a comment with { braces } and body { } */ .ticket-table::before { content: "} body {"; }');
    ok('.ticket-table[data-x="a,b"], .ticket-table:is(.x, .y) { color: red }');
    ok('');
  });

  it('refuses rules that reach past the component', () => {
    refused('body { margin: 0 }', /"body" does not name \.ticket-table/);
    refused('.ticket-table td, .button { color: red }', /"\.button" does not name/);
    refused('.ticket-tables { color: red }', /does not name/);
    refused('.ticket-table-x { color: red }', /does not name/);
    refused(':not(.ticket-table) p { color: red }', /does not name/);
    refused('body:has(.ticket-table) { overflow: hidden }', /does not name/);
    refused('@media print { .button { display: none } }', /does not name/);
    refused('@import url("/other.css");', /is not a rule/);
    refused('@font-face { font-family: x; src: url(x.woff) }', /@font-face is not allowed/);
    refused('@keyframes spin { to { transform: rotate(1turn) } }', /keyframes "spin" must be named ticket-table/);
  });

  it('refuses malformed sheets', () => {
    refused('.ticket-table { color: red', /not closed/);
    refused('.ticket-table { color: red } }', /closes no block/);
    refused('/* .ticket-table { }', /comment is not closed/);
    refused('{ color: red }', /no selector/);
    refused('.ticket-table', /has no block/);
    refused(`.ticket-table { content: "${'x'.repeat(MAX_COMPONENT_CSS)}" }`, /over/);
  });

  it('never throws, whatever the text (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (css) => {
      const problem = componentCssProblem(css, 'ticket-table');
      expect(problem === undefined || typeof problem === 'string').toBe(true);
    }), { numRuns: 500 });
  });

  it('a scoped rule stays accepted when unscoped text is only inside its block or a comment (property)', () => {
    const junk = fc.string({ unit: fc.constantFrom(...'abc :;.-_#'), maxLength: 30 });
    fc.assert(fc.property(junk, junk, (body, comment) => {
      expect(componentCssProblem(`/*${comment.replaceAll('*/', '')}*/ .ticket-table { ${body} }`, 'ticket-table')).toBeUndefined();
    }), { numRuns: 200 });
  });
});

describe('defineComponent with css', () => {
  it('keeps a scoped stylesheet and refuses one that is not, naming the component', () => {
    expect(define('.ticket-table { color: red }').css).toBe('.ticket-table { color: red }');
    expect(() => define('table { color: red }')).toThrow(ComponentDefinitionError);
    expect(() => define('table { color: red }')).toThrow(/component "TicketTable": css: selector "table" does not name \.ticket-table/);
  });

  it('the demo\'s and the support desk\'s components carry stylesheets for the htmx page', () => {
    for (const component of [PortraitCard, TicketTable, BarChart]) {
      expect(component.css, component.name).toContain(`.${componentClass(component.name)}`);
      expect(componentCssProblem(component.css!, componentClass(component.name)), component.name).toBeUndefined();
    }
  });
});
