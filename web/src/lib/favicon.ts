/**
 * The tab's icon with a count badge (wall-display.md §4: open critical and major alerts), drawn on
 * a canvas so a background tab still says how bad things are. `data-count` carries the number for
 * tests and tools.
 */
export function setFaviconBadge(count: number, colour = '#d32f2f'): void {
  wanted = { count, colour };
  // Drawing and encoding the icon costs a few ms: at 100 updates a second, at most once a second.
  if (timer) return;
  drawBadge();
  timer = setTimeout(() => {
    timer = null;
    if (wanted && (wanted.count !== drawn?.count || wanted.colour !== drawn.colour)) drawBadge();
  }, 1000);
}

let wanted: { count: number; colour: string } | null = null;
let drawn: { count: number; colour: string } | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function drawBadge(): void {
  if (!wanted || (wanted.count === drawn?.count && wanted.colour === drawn.colour)) return;
  const { count, colour } = wanted;
  drawn = wanted;
  const size = 64;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const g = canvas.getContext('2d');
  if (!g) return;
  // A plain bell-shaped mark in the product's indigo, then the badge over its corner.
  g.fillStyle = '#3949ab';
  g.beginPath();
  g.arc(28, 30, 20, Math.PI, 0);
  g.lineTo(48, 48);
  g.lineTo(8, 48);
  g.closePath();
  g.fill();
  g.beginPath();
  g.arc(28, 54, 6, 0, Math.PI * 2);
  g.fill();
  if (count > 0) {
    const label = count > 99 ? '99+' : String(count);
    g.fillStyle = colour;
    g.beginPath();
    g.arc(44, 20, 20, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = '#fff';
    g.font = `bold ${label.length > 2 ? 18 : 26}px sans-serif`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(label, 44, 21);
  }
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    document.head.appendChild(link);
  }
  link.type = 'image/png';
  link.href = canvas.toDataURL('image/png');
  link.dataset.count = String(count);
}
