// Collators and date formatters made once: `a.localeCompare(b, locales)` and `new Intl.DateTimeFormat(...)` build a
// new ICU object per call. Same results: the spec defines localeCompare with locales as Intl.Collator(...).compare.

const ruEn = new Intl.Collator(['ru', 'en']);
const ruEnNumeric = new Intl.Collator(['ru', 'en'], { numeric: true });
const ruEnBaseNumeric = new Intl.Collator(['ru', 'en'], { sensitivity: 'base', numeric: true });

/** a.localeCompare(b, ['ru', 'en']) */
export const compareRuEn = (a: string, b: string): number => ruEn.compare(a, b);
/** a.localeCompare(b, ['ru', 'en'], { numeric: true }) */
export const compareRuEnNumeric = (a: string, b: string): number => ruEnNumeric.compare(a, b);
/** new Intl.Collator(['ru', 'en'], { sensitivity: 'base', numeric: true }).compare */
export const compareRuEnBaseNumeric = (a: string, b: string): number => ruEnBaseNumeric.compare(a, b);

const dayFormats = new Map<string, Intl.DateTimeFormat>();
/** A yyyy-MM-dd formatter for a time zone; throws RangeError for an unknown zone, like the constructor. */
export function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, f);
  }
  return f;
}
