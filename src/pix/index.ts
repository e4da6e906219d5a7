export { buildStaticBrCode, formatCents, type StaticBrCodeInput } from './brcode.js';
export {
  buildDynamicBrCode,
  buildRecurrenceBrCode,
  payloadLocation,
  withRecurrence,
  type DynamicBrCodeInput,
  type RecurrenceBrCodeInput,
} from './brcode-dynamic.js';
export { parseBrCode, type ParsedBrCode } from './brcode-parse.js';
export { crc16, decodeTlv, encodeTlv, toEmvAscii, PIX_GUI, type Tlv } from './emv.js';
export {
  isValidDynamicTxid,
  isValidEndToEndId,
  isValidStaticTxid,
  isValidTxid,
  newDynamicTxid,
  newEndToEndId,
  newRecurrenceId,
  newTxid,
} from './ids.js';
export {
  PIX_KEY_TYPES,
  isPixKeyType,
  isValidCnpj,
  isValidCpf,
  isValidTaxId,
  validatePixKey,
  type PixKeyCheck,
  type PixKeyType,
} from './keys.js';
export { qrPngDataUrl } from './qr.js';
