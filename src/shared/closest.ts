// The known values nearest to a misspelt one, for error messages that say what was meant.

/** Only this many characters of a value are compared: the distance costs their product, and a longer text is no name. */
const comparedChars = 64;

/** Levenshtein distance, case-insensitive (a case slip counts nothing). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1);
      row.push(Math.min(substitution, previous[j]! + 1, row[j - 1]! + 1));
    }
    previous = row;
  }
  return previous[y.length]!;
}

/** The `count` known values nearest to `value` (fewest edits first, then by name). */
export function closest(value: string, known: readonly string[], count = 3): string[] {
  const cut = value.slice(0, comparedChars);
  return known
    .map((name) => ({ name, d: distance(cut, name) }))
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, count)
    .map((e) => e.name);
}

/** Up to this many known names are listed whole; past it, the closest few and how many there are. */
const listedWhole = 20;

/** "known: A, B, C" when there are a few, else "closest: A, B, C (N known: WHERE)": a message stays short. */
export function knownNames(value: string, known: readonly string[], where: string): string {
  if (known.length <= listedWhole) return `known: ${known.join(', ')}`;
  return `closest: ${closest(value, known, 5).join(', ')} (${known.length} known: ${where})`;
}

/** "unknown WHAT "VALUE"; closest: A, B, C (N known: WHERE)" */
export function unknownValueMessage(what: string, value: string, known: readonly string[], where: string): string {
  const shown = JSON.stringify(value.slice(0, 80));
  return `unknown ${what} ${shown}; closest: ${closest(value, known).join(', ')} (${known.length} known: ${where})`;
}
