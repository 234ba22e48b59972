/*
 * Surfacer HTML host: the page's few behaviours htmx does not give. Served as a file (the CSP
 * allows no inline script). Without it, or without JavaScript, the page still works: plain
 * form posts, Enter makes a new line, nothing scrolls by itself.
 */
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  var BOX = 'message-text';
  var FORM = 'message-form';
  /** What the last message sent said, and what was typed while its turn ran. */
  var sent = null;
  var carry = null;

  function box() { return document.getElementById(BOX); }
  function isMessageForm(elt) { return elt && elt.id === FORM; }

  // Enter sends, Shift+Enter (and IME composition) makes a new line.
  document.addEventListener('keydown', function (event) {
    var target = event.target;
    if (!target || target.id !== BOX || event.key !== 'Enter') return;
    if (event.shiftKey || event.altKey || event.ctrlKey || event.metaKey || event.isComposing || event.keyCode === 229) return;
    event.preventDefault();
    if (target.form && typeof target.form.requestSubmit === 'function') target.form.requestSubmit();
  });

  // The box empties as the message leaves (its text is already in the request), so whatever is
  // typed while the turn runs is new text, and survives the form the answer brings.
  document.addEventListener('htmx:beforeRequest', function (event) {
    if (!isMessageForm(event.detail && event.detail.elt)) return;
    var input = box();
    if (!input) return;
    sent = input.value;
    input.value = '';
  });
  document.addEventListener('htmx:beforeSwap', function (event) {
    if (!isMessageForm(event.detail && event.detail.elt)) return;
    var input = box();
    carry = input && input.value !== '' ? input.value : null;
  });
  // On the swap itself, not on htmx:load: that waits for the settle delay, after the busy line
  // has gone, and whatever is typed in between would land before the carried text.
  document.addEventListener('htmx:afterSwap', function (event) {
    var elt = event.detail && event.detail.elt;
    if (!isMessageForm(elt)) return;
    var input = box();
    if (input && carry !== null) {
      // A cancelled turn gives its message back; what was typed meanwhile follows it.
      input.value = input.value === '' ? carry : input.value + '\n' + carry;
      input.setSelectionRange(input.value.length, input.value.length);
    }
    carry = null;
    sent = null;
    // The answer's form replaced the one the user was in: the focus goes back, without scrolling
    // (htmx's autofocus would scroll, on a phone away from the panel the turn just opened).
    if (input) input.focus({ preventScroll: true });
  });
  // A refused message (shown in the alerts, the form not replaced) goes back into the box.
  document.addEventListener('htmx:afterRequest', function (event) {
    var elt = event.detail && event.detail.elt;
    if (!isMessageForm(elt) || sent === null || event.detail.successful) return;
    var input = box();
    if (input && input.isConnected) input.value = input.value === '' ? sent : sent + '\n' + input.value;
    sent = null;
  });

  function prefersReducedMotion() {
    return window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  }
  function reveal(elt, block) {
    elt.scrollIntoView({ block: block, behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
  }

  // An answer swapped into an alert slot (a refused message, an out-of-date panel) is shown.
  document.addEventListener('htmx:afterSwap', function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.isConnected && (target.id === 'alerts' || target.classList.contains('surface__alert')) && target.firstElementChild) {
      reveal(target, 'nearest');
    }
  });

  /*
   * What a person typed into a panel is theirs until they submit it, and the server has not seen
   * it: kept in this tab's storage by panel, epoch and rev, and put back whenever that panel is
   * drawn again at the same epoch and rev (a message shown on it, a reload, another instance's
   * page). A new rev (their own submit, the model setting a field) or epoch (Discard) starts
   * afresh. docs/directives.md, "Drafts".
   */
  function draftKey(surface) {
    return 'surfacer:draft:' + location.pathname + ':' + surface.getAttribute('data-surface') + ':'
      + surface.getAttribute('data-epoch') + ':' + surface.getAttribute('data-rev');
  }
  function typedControls(surface) {
    var all = surface.querySelectorAll('input[name], textarea[name], select[name]');
    var out = [];
    for (var i = 0; i < all.length; i++) {
      var t = all[i].type;
      if (t !== 'hidden' && t !== 'submit' && t !== 'button' && t !== 'reset' && t !== 'image' && t !== 'file') out.push(all[i]);
    }
    return out;
  }
  function valueOf(c) {
    if (c.type === 'checkbox' || c.type === 'radio') return c.checked;
    if (c.multiple) {
      var chosen = [];
      for (var i = 0; i < c.options.length; i++) if (c.options[i].selected) chosen.push(c.options[i].value);
      return chosen;
    }
    return c.value;
  }
  function setValue(c, v) {
    if (c.type === 'checkbox' || c.type === 'radio') c.checked = v === true;
    else if (c.multiple && Array.isArray(v)) for (var i = 0; i < c.options.length; i++) c.options[i].selected = v.indexOf(c.options[i].value) >= 0;
    else if (typeof v === 'string') c.value = v;
  }
  function saveDraft(surface) {
    var controls = typedControls(surface);
    var saved = { names: [], values: [] };
    for (var i = 0; i < controls.length; i++) { saved.names.push(controls[i].name); saved.values.push(valueOf(controls[i])); }
    try { window.sessionStorage.setItem(draftKey(surface), JSON.stringify(saved)); } catch (e) { /* storage off or full: typing stays on the page only */ }
  }
  function restoreDraft(surface) {
    if (surface.hidden || surface.getAttribute('data-draft-restored') === '1') return;
    surface.setAttribute('data-draft-restored', '1');
    var raw = null;
    try { raw = window.sessionStorage.getItem(draftKey(surface)); } catch (e) { return; }
    if (!raw) return;
    var saved;
    try { saved = JSON.parse(raw); } catch (e) { return; }
    var controls = typedControls(surface);
    // The same fields in the same order, or the saved values belong to another form.
    if (!saved || !Array.isArray(saved.names) || saved.names.length !== controls.length) return;
    for (var i = 0; i < controls.length; i++) if (controls[i].name !== saved.names[i]) return;
    for (var j = 0; j < controls.length; j++) setValue(controls[j], saved.values[j]);
  }
  function onTyped(event) {
    var target = event.target;
    var surface = target && target.closest ? target.closest('#surfaces > .surface') : null;
    if (surface) saveDraft(surface);
  }
  document.addEventListener('input', onTyped);
  document.addEventListener('change', onTyped);
  function restoreDrafts() {
    var surfaces = document.querySelectorAll('#surfaces > .surface');
    for (var i = 0; i < surfaces.length; i++) restoreDraft(surfaces[i]);
  }

  /*
   * Field checks (docs/directives.md "Field checks"): each control carries its rules and their
   * messages (data-rules, the server's own, in the server's order). The first rule a value fails
   * becomes the control's validity message, so the browser refuses the submit with the server's
   * words before any request, and they show under the field. The rules are read as the server
   * reads them (src/ui-ir/field-rules.ts): the value as it is, "required" as not blank, an empty
   * value meeting every other rule. Without JavaScript the attributes still check most of them.
   */
  var patterns = {};
  function wholeMatch(regex, text) {
    var re = patterns[regex];
    if (!re) {
      try { re = new RegExp('^(?:' + regex + ')$', 'v'); } catch (e) { return true; }
      patterns[regex] = re;
    }
    return re.test(text);
  }
  function realDate(text) {
    var d = new Date(text + 'T00:00:00Z');
    return !isNaN(d.getTime()) && d.toISOString().indexOf(text) === 0;
  }
  function onStep(n, step, base) {
    var q = (n - base) / step;
    return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
  }
  function meets(rule, text) {
    switch (rule.rule) {
      case 'minLength': return text.length >= rule.length;
      case 'maxLength': return text.length <= rule.length;
      case 'pattern': case 'email': case 'url': return wholeMatch(rule.regex, text);
      case 'date': return wholeMatch(rule.regex, text) && realDate(text);
      case 'number': return wholeMatch(rule.regex, text) && isFinite(Number(text));
      case 'range': return (rule.min === undefined || Number(text) >= rule.min) && (rule.max === undefined || Number(text) <= rule.max);
      case 'step': return onStep(Number(text), rule.step, rule.base);
      case 'choice': return rule.values.indexOf(text) >= 0;
      default: return true;
    }
  }
  function failedMessage(control) {
    var rules;
    try { rules = JSON.parse(control.getAttribute('data-rules') || '[]'); } catch (e) { return ''; }
    if (control.type === 'checkbox') return rules.length > 0 && rules[0].rule === 'required' && !control.checked ? rules[0].message : '';
    var text = control.value;
    for (var i = 0; i < rules.length; i++) {
      var rule = rules[i];
      if (rule.rule === 'required') { if (!/\S/.test(text)) return rule.message; continue; }
      if (text === '') return '';
      if (!meets(rule, text)) return rule.message;
    }
    return '';
  }
  function errorOf(control) {
    var id = control.id + '-error';
    var shown = document.getElementById(id);
    return { id: id, shown: shown };
  }
  function showError(control, message) {
    var error = errorOf(control);
    var describedBy = (control.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x && x !== error.id; });
    if (!message) {
      if (error.shown) error.shown.remove();
      control.removeAttribute('aria-invalid');
    } else {
      var p = error.shown;
      if (!p) {
        p = document.createElement('p');
        p.id = error.id;
        p.className = 'field__error';
        var field = control.closest('.field') || control.parentNode;
        field.appendChild(p);
      }
      p.textContent = message;
      control.setAttribute('aria-invalid', 'true');
      describedBy.push(error.id);
    }
    if (describedBy.length > 0) control.setAttribute('aria-describedby', describedBy.join(' '));
    else control.removeAttribute('aria-describedby');
  }
  function checkControl(control) {
    if (!control.hasAttribute || !control.hasAttribute('data-rules') || typeof control.setCustomValidity !== 'function') return;
    var message = failedMessage(control);
    control.setCustomValidity(message);
    // Shown once the person has been told (a refused submit), then kept current as they type.
    if (!message || document.getElementById(control.id + '-error')) showError(control, message);
  }
  function checkWithin(root) {
    var controls = root.querySelectorAll ? root.querySelectorAll('[data-rules]') : [];
    for (var i = 0; i < controls.length; i++) checkControl(controls[i]);
  }
  document.addEventListener('input', function (event) { checkControl(event.target); });
  document.addEventListener('change', function (event) { checkControl(event.target); });
  // Before htmx looks at the form (its listener is on the form): every control's message is set.
  document.addEventListener('submit', function (event) { checkWithin(event.target); }, true);
  document.addEventListener('invalid', function (event) {
    var control = event.target;
    if (control.hasAttribute && control.hasAttribute('data-rules')) showError(control, control.validationMessage);
  }, true);
  document.addEventListener('htmx:load', function (event) { checkWithin(event.detail.elt); });

  /** The transcript scrolls on its own on wide screens: keep its newest entry in view. */
  function pinTranscript() {
    var list = document.getElementById('transcript');
    if (list && list.scrollHeight > list.clientHeight) list.scrollTop = list.scrollHeight;
  }

  /**
   * A panel that is new (or opened again: a new epoch or template) is scrolled into view, on
   * every path it arrives by (a turn's answer, the events stream, a refresh). A panel the user
   * just submitted (same epoch, new rev) stays where it is.
   */
  var known = {};
  function stateOf(surface) { return surface.getAttribute('data-epoch') + ' ' + surface.getAttribute('data-template'); }
  function scanSurfaces(scroll) {
    var list = document.getElementById('surfaces');
    if (!list) return false;
    var fresh = null;
    var seen = {};
    var surfaces = list.querySelectorAll(':scope > .surface');
    for (var i = 0; i < surfaces.length; i++) {
      var s = surfaces[i];
      var id = s.getAttribute('data-surface');
      seen[id] = true;
      var state = stateOf(s);
      if (known[id] !== state && !s.hidden) fresh = s;
      known[id] = state;
    }
    for (var k in known) if (!seen[k]) delete known[k];
    if (scroll && fresh) { reveal(fresh, 'start'); return true; }
    return false;
  }

  function start() {
    restoreDrafts();
    checkWithin(document);
    scanSurfaces(false);
    pinTranscript();
    var surfaces = document.getElementById('surfaces');
    var transcript = document.getElementById('transcript');
    var entriesAdded = false;
    var queued = false;
    function settle() {
      queued = false;
      restoreDrafts();
      checkWithin(document);
      var scrolled = scanSurfaces(true);
      if (entriesAdded) {
        pinTranscript();
        // Narrow screens scroll as one page: show the reply when no panel came with it.
        var last = transcript && transcript.lastElementChild;
        if (!scrolled && last && transcript.scrollHeight <= transcript.clientHeight) reveal(last, 'nearest');
      }
      entriesAdded = false;
    }
    function later() { if (!queued) { queued = true; window.setTimeout(settle, 0); } }
    if (window.MutationObserver) {
      // Drafts go back in the observer's microtask, before any keystroke can reach a panel drawn
      // again: typing into one field of it first would save its other fields empty over the draft.
      if (surfaces) new MutationObserver(function () { restoreDrafts(); later(); }).observe(surfaces, { childList: true });
      if (transcript) new MutationObserver(function () { entriesAdded = true; later(); }).observe(transcript, { childList: true });
    }
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
