/** The worker thread of the prepare pool: prepares each batch it is sent (prepare-batch.ts) and answers by id. */
import { parentPort } from 'node:worker_threads';
import { prepareBatch, type BatchInput } from './prepare-batch.ts';

interface Request {
  id: number;
  buffer: ArrayBuffer;
  inputs: BatchInput[];
}

parentPort?.on('message', (req: Request) => {
  try {
    const result = prepareBatch(req.inputs, Buffer.from(req.buffer));
    parentPort?.postMessage({ id: req.id, result }, [result.rows.columns.buffer as ArrayBuffer, result.rows.documents.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort?.postMessage({ id: req.id, error: String((err as Error)?.message ?? err) });
  }
});
