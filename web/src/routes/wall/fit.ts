/**
 * Labels that are never cut (docs/ui-wall.md, "Nothing clipped"; tests/browser/wall-noc.test.ts).
 * The two long severity words are written shorter on purpose; anything else that still does not
 * fit its box at the screen's size (a custom severity, a status at a large scale) gets smaller type
 * until it does, instead of losing letters at both ends.
 */

/** Severity words the wall writes shorter on its bars, tiles and chips; the full word is the title. */
const SHORT: Record<string, string> = { informational: 'info', indeterminate: 'indet' };

/** The word the wall writes for a severity (shown in capitals). */
export const severityLabel = (severity: string): string => SHORT[severity] ?? severity;

/**
 * An attachment (`{@attach fit(text)}`, `text` being what the box shows, so a change re-fits) that
 * shrinks the box's type until its contents fit its width; measured again whenever the box resizes
 * (the window, the scale, the columns).
 */
export function fit(text: string) {
  return (box: HTMLElement) => {
    void text;
    const range = document.createRange();
    const measure = () => {
      box.style.fontSize = '';
      const style = getComputedStyle(box);
      const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      range.selectNodeContents(box);
      const need = range.getBoundingClientRect().width;
      if (room > 0 && need > room) {
        box.style.fontSize = `${Math.floor(((parseFloat(style.fontSize) * room) / need) * 0.97 * 100) / 100}px`;
      }
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  };
}
