import { PNG } from 'pngjs';

/**
 * A store logo as a merchant would upload one (a PNG data URL): a round loaf on a transparent 96×96 canvas, so the
 * screenshots show a logo and not the 1×1 pixel the HTTP tests use.
 */
export function sampleLogo(): string {
  const size = 96;
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      const d = Math.hypot(x - 48, y - 50);
      const crust = d < 42;
      const crumb = Math.hypot(x - 48, y - 56) < 30 && y > 40;
      const cut = crust && Math.abs(y - 30 - (x - 48) * 0.3) < 2.5 && Math.abs(x - 48) < 24;
      const [r, g, b, a] = cut || crumb ? [246, 214, 160, 255] : crust ? [168, 84, 30, 255] : [0, 0, 0, 0];
      png.data[i] = r; png.data[i + 1] = g; png.data[i + 2] = b; png.data[i + 3] = a;
    }
  }
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}
