// dom.js: a tiny element builder, so screens read as a tree of calls
// instead of string templates (the CSP forbids inline handlers anyway).

/**
 * @typedef {Object<string, any>} Props
 * Keys: "class" (string or array), "on" (event name → handler),
 * "dataset" (data-* values), "style" (object for element.style),
 * "text" (textContent); "value", "checked", "disabled", "hidden",
 * "selected" are set as properties; everything else as an attribute
 * (false/null/undefined skip it, true sets it empty).
 */

/** @typedef {Node | string | number | null | undefined | false | Array<Node | string | number | null | undefined | false | any[]>} Child */

/**
 * h builds an element.
 * @param {string} tag
 * @param {Props} [props]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    switch (key) {
      case 'class':
        el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
        break;
      case 'on':
        for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
        break;
      case 'dataset':
        for (const [k, v] of Object.entries(value)) if (v !== undefined && v !== null) el.dataset[k] = String(v);
        break;
      case 'style':
        Object.assign(el.style, value);
        break;
      case 'text':
        el.textContent = String(value);
        break;
      case 'value':
      case 'checked':
      case 'disabled':
      case 'hidden':
      case 'selected':
        /** @type {any} */ (el)[key] = value;
        break;
      default:
        el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * append adds children, flattening arrays and skipping empty values.
 * @param {Node} parent
 * @param {Child[]} children
 */
export function append(parent, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/**
 * replace swaps an element's children for new ones.
 * @param {Element} el
 * @param {...Child} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let idSeq = 0;
/**
 * uid returns a document-unique id for label/aria wiring.
 * @param {string} [prefix]
 */
export function uid(prefix = 'f') {
  idSeq += 1;
  return `${prefix}-${idSeq}`;
}

/**
 * debounce delays fn until calls stop for ms milliseconds.
 * @template {any[]} A
 * @param {(...args: A) => void} fn
 * @param {number} ms
 * @returns {((...args: A) => void) & {flush: () => void, cancel: () => void}}
 */
export function debounce(fn, ms) {
  /** @type {number | undefined} */ let timer;
  /** @type {A | null} */ let pending = null;
  const run = () => {
    timer = undefined;
    if (pending) {
      const args = pending;
      pending = null;
      fn(...args);
    }
  };
  const d = /** @type {any} */ ((/** @type {A} */ ...args) => {
    pending = args;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  });
  d.flush = () => { clearTimeout(timer); run(); };
  d.cancel = () => { clearTimeout(timer); pending = null; };
  return d;
}
