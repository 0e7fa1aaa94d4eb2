import { describe, expect, it } from 'vitest';
import { parseDataUrl, toDataUrl } from './data-url.ts';

describe('data-url', () => {
  it('splits and builds data URLs', () => {
    expect(parseDataUrl('data:image/PNG;base64,AAAA')).toEqual({ mediaType: 'image/png', data: 'AAAA' });
    expect(parseDataUrl('data:application/pdf;name=a.pdf;base64,JVBE')).toEqual({ mediaType: 'application/pdf', data: 'JVBE' });
    expect(parseDataUrl('data:text/plain,hello')).toBeUndefined();
    expect(parseDataUrl('https://x/y.png')).toBeUndefined();
    expect(toDataUrl('image/png', 'AAAA')).toBe('data:image/png;base64,AAAA');
  });
});
