/**
 * The rows a terminal `columns` wide shows after `output`, as xterm draws them: text wraps after the last column only
 * when one more character comes (the pending wrap), a line feed starts the next row at its first column (the tty's
 * onlcr), and the cursor moves and line clears the live block writes (CSI G, A, B, K).
 */
export function screenAfter(output: string, columns: number): string[] {
  const rows: Array<Array<string | undefined> | undefined> = [];
  let row = 0;
  let column = 0;
  let pending = false;
  const cells = () => (rows[row] ??= []);
  for (let at = 0; at < output.length;) {
    const csi = /^\x1b\[(\d*)([A-Za-z])/.exec(output.slice(at, at + 16));
    if (csi) {
      at += csi[0].length;
      const n = csi[1] === '' ? 0 : Number(csi[1]);
      if (csi[2] === 'G') column = Math.max(1, n) - 1;
      else if (csi[2] === 'A') row = Math.max(0, row - Math.max(1, n));
      else if (csi[2] === 'B') row += Math.max(1, n);
      else if (csi[2] === 'K') {
        const line = cells();
        const [from, to] = n === 0 ? [column, columns] : n === 1 ? [0, column + 1] : [0, columns];
        for (let k = from; k < to; k++) line[k] = ' ';
      }
      pending = false;
      continue;
    }
    const char = String.fromCodePoint(output.codePointAt(at) ?? 32);
    at += char.length;
    if (char === '\r' || char === '\n') {
      if (char === '\n') row++;
      column = 0;
      pending = false;
      continue;
    }
    if (pending) [row, column, pending] = [row + 1, 0, false];
    cells()[column] = char;
    if (column === columns - 1) pending = true;
    else column++;
  }
  return Array.from(rows, (line) =>
    Array.from(line ?? [], (cell) => cell ?? ' ')
      .join('')
      .trimEnd(),
  );
}
