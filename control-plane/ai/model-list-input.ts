/** Validation of model lists in request bodies (key allowed models, account models, alias models). */
import { svcError } from '../../core/errors.ts';
import { modelNameProblem, modelPatternProblem } from '../../core/ai/model-pattern.ts';

/**
 * Checks every entry (ids, or ids and `*` patterns when `patterns` is true), refuses duplicates and returns the list
 * unchanged. `field` names the body field in the error message and details.
 */
export function checkModelList(list: readonly string[], field: string, opts: { patterns: boolean; max: number; min?: number }): string[] {
  const min = opts.min ?? 0;
  if (list.length < min) throw svcError('validation_failed', `"${field}" must list at least ${min} model${min === 1 ? '' : 's'}.`, { field });
  if (list.length > opts.max) throw svcError('validation_failed', `"${field}" lists ${list.length} entries; at most ${opts.max} are allowed.`, { field });
  const seen = new Set<string>();
  list.forEach((m, i) => {
    const problem = opts.patterns ? modelPatternProblem(m) : modelNameProblem(m);
    if (problem) {
      const hint = !opts.patterns && m.includes('*') ? ' (patterns are not allowed here: name exact model ids)' : '';
      throw svcError('validation_failed', `"${field}[${i}]" ("${m}") ${problem}${hint}.`, { field: `${field}[${i}]`, value: m });
    }
    if (seen.has(m)) throw svcError('validation_failed', `"${field}" lists "${m}" twice.`, { field: `${field}[${i}]`, value: m });
    seen.add(m);
  });
  return [...list];
}

/** JSON schema of a list of model ids or patterns (the content is checked by checkModelList). */
export const MODEL_LIST_SCHEMA = { type: 'array', items: { type: 'string' } } as const;
