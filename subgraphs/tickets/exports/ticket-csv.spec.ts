import { csvCell, csvText, CSV_BOM, ticketCsvHeader } from './ticket-csv';

describe('the tickets CSV cells', () => {
  it('quotes separators, quotes and line breaks as RFC 4180 does, quotes doubled', () => {
    expect(csvText('plain')).toBe('plain');
    expect(csvText('Kebab, no onion')).toBe('"Kebab, no onion"');
    expect(csvText('The "big" one')).toBe('"The ""big"" one"');
    expect(csvText('line\nbreak')).toBe('"line\nbreak"');
    expect(csvText('cr\rhere')).toBe('"cr\rhere"');
  });

  it('keeps a typed text that starts like a formula from running, with a leading apostrophe', () => {
    expect(csvText('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvText('+964 770')).toBe("'+964 770");
    expect(csvText('-5')).toBe("'-5");
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvText('\tx')).toBe("'\tx");
    expect(csvText('a=b')).toBe('a=b');
  });

  it('writes Arabic as it is, null as an empty cell, numbers and booleans as JSON does', () => {
    expect(csvText('حسين علي')).toBe('حسين علي');
    expect(csvCell(null)).toBe('');
    expect(csvCell(12)).toBe('12');
    expect(csvCell(false)).toBe('false');
  });

  it('starts the file with a byte-order mark and the header line', () => {
    expect(ticketCsvHeader().startsWith(`${CSV_BOM}id,branch_id,number,external_id,token,status,`)).toBe(
      true,
    );
    expect(ticketCsvHeader().endsWith('created_at,updated_at\r\n')).toBe(true);
  });
});
