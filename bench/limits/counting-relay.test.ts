import { describe, expect, it } from 'vitest';
import { RespCommandCounter } from './counting-relay.ts';

describe('RespCommandCounter', () => {
  it('counts commands by name across split and pipelined writes, ignoring bulk contents', () => {
    const c = new RespCommandCounter();
    const evalsha = '*4\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n0\r\n$11\r\n*2\r\n$3\r\nGET\r\n';
    const wire = Buffer.from(`${evalsha}*1\r\n$4\r\nPING\r\n${evalsha}`);
    for (let i = 0; i < wire.length; i += 5) c.feed(wire.subarray(i, i + 5));
    expect(Object.fromEntries(c.counts)).toEqual({ evalsha: 2, ping: 1 });
    expect(c.total()).toBe(3);
  });
});
