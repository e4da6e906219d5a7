/** Polls `fn` until it returns without throwing (or returns a truthy value), or fails after `timeoutMs`. */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 5000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = new Error('condition never held');
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== false && value !== undefined && value !== null) return value;
      lastError = new Error('condition returned ' + String(value));
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw lastError;
}
