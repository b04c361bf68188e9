// i18n.js: the app's words in English, German or Spanish. The messages
// live in one flat JSON catalog per language (assets/i18n/xx.json); the
// server writes the UI messages of the language it negotiated into
// index.html (a JSON data block, so the first load costs no request), and
// a switch, or a choice the page was not served in, fetches the catalog
// (the service worker keeps all three, so switching works offline).
//
// The language is the one chosen in the app (kept on the device, and in a
// cookie so the server serves index.html in it), else the browser's first
// of en, de and es, else English. Game vocabularies, breakdown labels and
// the server's error details come translated from the server and the
// engine: they are shown as they come.

/** The languages the app speaks, English first (the fallback). */
export const LANGUAGES = /** @type {const} */ (['en', 'de', 'es']);

/** Each language's name in itself, for the switch. */
export const LANGUAGE_NAMES = { en: 'English', de: 'Deutsch', es: 'Español' };

/** Where the device keeps the language chosen in the app. */
const storeKey = 'insectscore.lang';

/**
 * supported returns the app's language for a tag ("de-AT" → "de"), or "".
 * @param {string | null | undefined} tag
 */
function supported(tag) {
  const base = String(tag ?? '').toLowerCase().split(/[-_]/)[0];
  return /** @type {readonly string[]} */ (LANGUAGES).includes(base) ? base : '';
}

/** chosenLanguage is the language picked in the app, or "". */
export function chosenLanguage() {
  try {
    return supported(localStorage.getItem(storeKey));
  } catch {
    return '';
  }
}

/** browserLanguage is the first of the browser's languages the app speaks, else English. */
export function browserLanguage() {
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    const l = supported(tag);
    if (l) return l;
  }
  return 'en';
}

/** @type {Object<string, string>} */
let catalog = {};
let lang = 'en';
/** @type {Map<string, Intl.PluralRules>} */
const pluralRules = new Map();

/**
 * inlineCatalog reads the catalog the server put into index.html.
 * @returns {{lang: string, messages: Object<string, string>} | null}
 */
function inlineCatalog() {
  const el = document.getElementById('catalog');
  if (!el) return null;
  try {
    return { lang: supported(el.dataset.lang) || 'en', messages: JSON.parse(el.textContent || '{}') };
  } catch {
    return null;
  }
}

/** @type {Map<string, Object<string, string>>} catalogs fetched by keepCatalogs */
const kept = new Map();

/**
 * fetchCatalog loads a language's catalog (from the service worker's
 * cache when offline, or from what keepCatalogs kept).
 * @param {string} l
 * @returns {Promise<Object<string, string>>}
 */
async function fetchCatalog(l) {
  const known = kept.get(l);
  if (known) return known;
  const res = await fetch(new URL(`../i18n/${l}.json`, import.meta.url));
  if (!res.ok) throw new Error(`catalog ${l}: ${res.status}`);
  return res.json();
}

/**
 * keepCatalogs fetches every other language's catalog and keeps it in
 * the page, so the language can be switched with the server down where
 * no service worker keeps them (a plain http address).
 */
export async function keepCatalogs() {
  await Promise.all(LANGUAGES.filter((l) => l !== lang && !kept.has(l)).map(async (l) => {
    kept.set(l, await fetchCatalog(l));
  }));
}

/**
 * use makes a catalog the one the app speaks, and says so on <html lang>.
 * @param {string} l
 * @param {Object<string, string>} messages
 */
function use(l, messages) {
  lang = l;
  catalog = messages;
  document.documentElement.lang = l;
}

// The language is settled before any screen draws (a top-level await, only
// when the page came in another language than the one wanted).
{
  const want = chosenLanguage() || browserLanguage();
  const inline = inlineCatalog();
  if (inline && inline.lang === want) {
    use(want, inline.messages);
  } else {
    try {
      use(want, await fetchCatalog(want));
    } catch {
      if (inline) use(inline.lang, inline.messages);
    }
  }
}

/** language is the language the app speaks now ("en", "de" or "es"). */
export function language() {
  return lang;
}

/**
 * setLanguage switches the app to a language at once and remembers it on
 * the device; it fires "insectscore:language" so the current screen is
 * drawn again and kept copies in the old language are set aside.
 * @param {string} l
 */
export async function setLanguage(l) {
  const next = supported(l);
  if (!next) return;
  const messages = next === lang ? catalog : await fetchCatalog(next);
  try {
    localStorage.setItem(storeKey, next);
  } catch { /* not kept: the browser's language next time */ }
  document.cookie = `lang=${next}; path=/; max-age=31536000; SameSite=Lax`;
  const changed = next !== lang;
  use(next, messages);
  if (changed) window.dispatchEvent(new CustomEvent('insectscore:language', { detail: { lang: next } }));
}

/**
 * t returns the message for a key with its {name} placeholders filled in;
 * the key itself if the catalog lacks it (a test keeps them complete).
 * @param {string} key
 * @param {Object<string, string | number>} [params]
 */
export function t(key, params) {
  const msg = catalog[key] ?? key;
  if (!params) return msg;
  return msg.replace(/\{(\w+)\}/g, (m, name) => (name in params ? fmt(params[name]) : m));
}

/**
 * fmt writes a placeholder's value: numbers in the language's way.
 * @param {string | number} v
 */
function fmt(v) {
  return typeof v === 'number' ? number(v) : String(v);
}

/**
 * plural returns the message for a count: key.one, key.other (every
 * language has the same forms; a form a language's rules name but its
 * catalog lacks falls back to key.other). {n} is the count.
 * @param {string} key
 * @param {number} n
 * @param {Object<string, string | number>} [params]
 */
export function plural(key, n, params = {}) {
  let rules = pluralRules.get(lang);
  if (!rules) {
    rules = new Intl.PluralRules(lang);
    pluralRules.set(lang, rules);
  }
  const form = `${key}.${rules.select(n)}`;
  return t(form in catalog ? form : `${key}.other`, { n, ...params });
}

/**
 * ordinal writes a rank: 1st, 2nd (1., 2. in German; 1.º in Spanish), by
 * the language's ordinal rules: ui.ordinal.one, .two, .few, .other.
 * @param {number} n
 */
export function ordinal(n) {
  let rules = pluralRules.get(`${lang}|ordinal`);
  if (!rules) {
    rules = new Intl.PluralRules(lang, { type: 'ordinal' });
    pluralRules.set(`${lang}|ordinal`, rules);
  }
  const base = 'ui.ordinal';
  const form = `${base}.${rules.select(n)}`;
  return t(form in catalog ? form : `${base}.other`, { n });
}

/** @type {Map<string, Intl.NumberFormat | Intl.DateTimeFormat>} */
const formats = new Map();

/**
 * formatter returns a formatter for the language, made once.
 * @template {Intl.NumberFormat | Intl.DateTimeFormat} F
 * @param {string} kind
 * @param {() => F} make
 * @returns {F}
 */
function formatter(kind, make) {
  const k = `${lang}|${kind}`;
  let f = formats.get(k);
  if (!f) {
    f = make();
    formats.set(k, f);
  }
  return /** @type {F} */ (f);
}

/**
 * number writes a number in the language's way (1,234.5 / 1.234,5).
 * @param {number} n
 * @param {Intl.NumberFormatOptions} [opts]
 */
export function number(n, opts) {
  return formatter(`n${JSON.stringify(opts ?? {})}`, () => new Intl.NumberFormat(lang, opts)).format(n);
}

/**
 * date writes a moment in the language's way.
 * @param {Date | number | string} d
 * @param {Intl.DateTimeFormatOptions} opts
 */
export function date(d, opts) {
  return formatter(`d${JSON.stringify(opts)}`, () => new Intl.DateTimeFormat(lang, opts)).format(new Date(d));
}

/**
 * list joins words as the language does: "Ana, Ben and Cleo".
 * @param {string[]} items
 */
export function list(items) {
  return new Intl.ListFormat(lang, { style: 'long', type: 'conjunction' }).format(items);
}
