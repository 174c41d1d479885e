/**
 * How deeply the arrays and objects of a JSON text nest, read without parsing (brackets inside strings do not count).
 * Lets a parser refuse a body nested thousands deep before anything recurses over it.
 * @example jsonDepth('{"a":[1,"]"]}') === 2
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
