// Money as the hub sends it: decimal strings. Sums and the prize preview are computed exactly
// (BigInt at 10^-6), never with floats; rounding is down to the profile's unit, as the rules do.

const SCALE = 6;
const ONE = 10n ** BigInt(SCALE);

export function parse(text) {
  const value = String(text ?? '0').trim();
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(value);
  if (!match) throw new Error(`not a decimal: ${value}`);
  const whole = BigInt(match[2] || '0');
  const fraction = BigInt(((match[3] || '') + '0'.repeat(SCALE)).slice(0, SCALE));
  const scaled = whole * ONE + fraction;
  return match[1] ? -scaled : scaled;
}

export function format(scaled, places = 2) {
  const negative = scaled < 0n;
  let value = negative ? -scaled : scaled;
  const whole = value / ONE;
  const fraction = (value % ONE).toString().padStart(SCALE, '0').slice(0, places);
  return `${negative ? '-' : ''}${whole}${places ? '.' + fraction : ''}`;
}

export function add(a, b) {
  return format(parse(a) + parse(b), SCALE).replace(/\.?0+$/, '') || '0';
}

export function times(a, count) {
  return format(parse(a) * BigInt(count), SCALE).replace(/\.?0+$/, '') || '0';
}

// `percent` % of `base`, rounded down to `unit` (bingo_hall/domain/money.py:percentage_of).
export function percentageOf(base, percent, unit = '0.01') {
  const exact = (parse(base) * parse(percent)) / ONE / 100n;
  const step = parse(unit);
  return format((exact / step) * step, 2);
}
