import { newEndToEndId } from '../../src/pix/index.js';
import { PSP_ISPB, problem, type Answer } from './fake-psp-bacen.js';

/**
 * Sending a PIX is outside BACEN's API Pix: these are the Efí-shaped endpoints of
 * src/providers/api-pix/api-pix-payouts.provider.ts, checked here by hand since BACEN's document has no word
 * on them. Payout failure modes belong in this file.
 */
export interface Envio { idEnvio: string; endToEndId: string; valor: string; status: string; motivo?: string; body: any }

export interface PayoutState {
  envios: Map<string, Envio>;
  /**
   * What a send of an idEnvio the PSP already holds gets: `replay` answers the payout it holds (Efí's
   * behaviour), `refuse` a 422 "idEnvio already used", as some PSPs do.
   */
  duplicateSends: 'replay' | 'refuse';
}

/** The payout routes; null for a route not served here. */
export function payoutAnswer(state: PayoutState, method: string, path: string, body: any): Answer | null {
  let m: RegExpExecArray | null;
  if ((m = /^\/gn\/pix\/([A-Za-z0-9]{1,35})$/.exec(path)) && method === 'PUT') {
    if (typeof body?.valor !== 'string' || !/^\d{1,10}\.\d{2}$/.test(body.valor) || typeof body?.favorecido?.chave !== 'string') {
      return [400, problem(400, 'Requisicao invalida')];
    }
    if (String(body.favorecido.chave).endsWith('@nao-existe.test')) return [400, problem(400, 'Chave Pix nao encontrada')];
    const known = state.envios.get(m[1]!);
    if (known) return state.duplicateSends === 'refuse' ? [422, problem(422, 'idEnvio ja utilizado')] : [200, known];
    const envio: Envio = { idEnvio: m[1]!, endToEndId: newEndToEndId(PSP_ISPB, new Date()), valor: body.valor, status: 'EM_PROCESSAMENTO', body };
    state.envios.set(m[1]!, envio);
    return [201, envio];
  }
  if ((m = /^\/gn\/pix\/enviados\/id-envio\/([A-Za-z0-9]{1,35})$/.exec(path)) && method === 'GET') {
    const known = state.envios.get(m[1]!);
    return known ? [200, known] : [404, problem(404, 'Pix enviado nao encontrado')];
  }
  return null;
}
