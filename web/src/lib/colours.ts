/**
 * Colours from `/config colors` made readable: text on a severity or status colour meets WCAG AA
 * (4.5:1) whatever the server configures (issue #19 item 7). The configured text colour is kept
 * where it is readable; elsewhere black or white, whichever contrasts more (one of them always
 * reaches 4.58:1).
 */

export type Rgb = readonly [number, number, number];

/** WCAG AA for normal text. */
export const AA = 4.5;

const HEX = /^#([0-9a-f]{3,8})$/i;
const RGB = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/i;

let canvas: CanvasRenderingContext2D | null | undefined;
const cache = new Map<string, Rgb | null>();

function parse(colour: string): Rgb | null {
  const hex = HEX.exec(colour.trim());
  if (hex) {
    let h = hex[1]!;
    if (h.length === 3 || h.length === 4) h = [...h.slice(0, 3)].map((c) => c + c).join('');
    if (h.length !== 6 && h.length !== 8) return null;
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as unknown as Rgb;
  }
  const rgb = RGB.exec(colour.trim());
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
  return null;
}

/** The sRGB channels (0–255) of a CSS colour: hex, rgb() or, in a browser, any name it knows. */
export function rgbOf(colour: string): Rgb | null {
  if (cache.has(colour)) return cache.get(colour)!;
  let rgb = parse(colour);
  if (!rgb && typeof document !== 'undefined') {
    canvas ??= document.createElement('canvas').getContext('2d');
    if (canvas) {
      // An unknown name leaves fillStyle as it was: start from a sentinel to tell.
      canvas.fillStyle = '#010203';
      canvas.fillStyle = colour;
      const resolved = String(canvas.fillStyle);
      rgb = resolved === '#010203' && !/^#010203$/i.test(colour) ? null : parse(resolved);
    }
  }
  cache.set(colour, rgb);
  return rgb;
}

/** Relative luminance (WCAG 2). */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Contrast ratio of two colours, 1 to 21. */
export function contrast(a: Rgb, b: Rgb): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const BLACK: Rgb = [0, 0, 0];
const WHITE: Rgb = [255, 255, 255];

/** Text colour for `background`: `preferred` when it reaches AA there, else black or white. */
export function inkOn(background: string, preferred = '#000'): string {
  const bg = rgbOf(background);
  if (!bg) return preferred;
  const want = rgbOf(preferred);
  if (want && contrast(bg, want) >= AA) return preferred;
  return contrast(bg, BLACK) >= contrast(bg, WHITE) ? '#000' : '#fff';
}

/** Fill and text of a severity badge from `/config colors` (grey for a severity without a colour). */
export function severityPaint(
  colors: { severity?: Record<string, string>; text?: string } | undefined,
  severity: string,
): { fill: string; ink: string } {
  const fill = colors?.severity?.[severity] ?? '#9e9e9e';
  return { fill, ink: inkOn(fill, colors?.text ?? '#000') };
}

/** Fill and text of a status from `/config colors.status`, or null when none is configured. */
export function statusPaint(
  colors: { status?: Record<string, string>; text?: string } | undefined,
  status: string,
): { fill: string; ink: string } | null {
  const fill = colors?.status?.[status];
  return fill ? { fill, ink: inkOn(fill, colors?.text ?? '#000') } : null;
}
