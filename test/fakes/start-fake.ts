/** Starts a FakeUpstream of one wire style on a random 127.0.0.1 port. */
import { chatWire } from './chat-wire.ts';
import { FakeUpstream, type FakeWire } from './fake-upstream.ts';
import { generativeWire } from './generative-wire.ts';
import { messagesWire } from './messages-wire.ts';
import { responsesWire } from './responses-wire.ts';

export const FAKE_WIRES: Record<FakeWire['style'], FakeWire> = {
  chat: chatWire,
  messages: messagesWire,
  generative: generativeWire,
  responses: responsesWire,
};

export function startFake(style: FakeWire['style'], models: string[] = []): Promise<FakeUpstream> {
  return new FakeUpstream(FAKE_WIRES[style], models).start();
}
