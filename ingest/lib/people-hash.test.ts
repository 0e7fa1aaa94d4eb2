import { describe, expect, it } from 'vitest';
import { peopleHash } from './people-hash.ts';

describe('peopleHash', () => {
  it('uses the first present of id, email, username, ip', () => {
    const byId = peopleHash({ id: '42', email: 'a@example.com', username: 'ann', ip_address: '10.0.0.1' });
    expect(byId).toMatch(/^[0-9a-f]{32}$/);
    expect(byId).toBe(peopleHash({ id: '42' }));
    expect(peopleHash({ email: 'A@Example.com', username: 'ann' })).toBe(peopleHash({ email: 'a@example.com' }));
    expect(peopleHash({ username: 'ann', ip_address: '10.0.0.1' })).toBe(peopleHash({ username: 'ann' }));
    expect(peopleHash({ ip_address: '10.0.0.1' })).toBe(peopleHash(undefined, { ip: '10.0.0.1' }));
  });

  it('keeps kinds apart and differs per salt', () => {
    expect(peopleHash({ id: '42' })).not.toBe(peopleHash({ username: '42' }));
    expect(peopleHash({ id: '42' }, { salt: 'p1' })).not.toBe(peopleHash({ id: '42' }, { salt: 'p2' }));
  });

  it('gives undefined when no one is identified', () => {
    expect(peopleHash(undefined)).toBeUndefined();
    expect(peopleHash({ name: 'Ann', id: '  ' })).toBeUndefined();
  });

  it('never contains the identity in clear', () => {
    expect(peopleHash({ email: 'a@example.com' })).not.toContain('example');
  });
});
