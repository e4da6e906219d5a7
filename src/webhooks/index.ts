// Public entry for receivers: verify a Pixgate delivery (docs/webhooks.md).
export { DEFAULT_TOLERANCE_SECONDS, EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader, verifySignature } from './signature.crypto.js';
