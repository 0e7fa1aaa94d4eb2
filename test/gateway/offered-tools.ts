/** The tool names a fake upstream was offered in its last request, whatever its style's tool shape. */
import type { FakeUpstream } from '../fakes/fake-upstream.ts';

interface AnyStyleTool {
  /** messages */
  name?: string;
  /** chat */
  function?: { name: string };
  /** generative-language */
  functionDeclarations?: { name: string }[];
}

export function offeredTools(fake: FakeUpstream): string[] {
  const body = fake.calls.at(-1)?.body as { tools?: AnyStyleTool[] } | undefined;
  return (body?.tools ?? []).flatMap((t) => (t.function ? [t.function.name] : t.functionDeclarations ? t.functionDeclarations.map((d) => d.name) : [t.name ?? '']));
}
