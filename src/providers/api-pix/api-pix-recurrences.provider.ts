import { buildRecurrenceBrCode, withRecurrence } from '../../pix/index.js';
import type { Runtime } from '../../runtime.js';
import type { PixProvider, RecurrenceInput } from '../port/provider.port.js';
import { ApiPixError, type ApiPixClient } from './api-pix.client.js';
import { toValor, truncate } from './api-pix-ids.rules.js';

/*
 * Pix Automático at a PSP speaking BACEN's API Pix 2.9.0 (docs/contract/subscriptions.md#at-the-provider): a
 * subscription is a `rec` (with a `locrec` for the QR journeys, a `solicrec` for journey 1), each cycle a `cobr`
 * under the cycle's own txid, received in the platform's account (`cobr.recebedor`, API_PIX_RECEIVER_*).
 */

const PERIODICIDADE = { WEEKLY: 'SEMANAL', MONTHLY: 'MENSAL', QUARTERLY: 'TRIMESTRAL', SEMIANNUAL: 'SEMESTRAL', ANNUAL: 'ANUAL' } as const;

/** API Pix `PayloadLocationRecGerada` (the fields read). */
interface LocRec { id?: unknown; location?: unknown }
/** API Pix `RecGerada` / `RecCompleta` (the fields read by the adapter). */
export interface Rec {
  idRec?: unknown;
  status?: unknown;
  ativacao?: { tipoJornada?: unknown; dadosJornada?: { txid?: unknown } } | null;
  encerramento?: { cancelamento?: { solicitante?: unknown } | null; rejeicao?: unknown } | null;
}
/** API Pix `CobRCompleta` (the fields read by the adapter). */
export interface CobR {
  txid?: unknown;
  idRec?: unknown;
  status?: unknown;
  tentativas?: Array<{ dataLiquidacao?: unknown; status?: unknown; endToEndId?: unknown; rejeicao?: { codigo?: unknown } | null }>;
  pix?: Array<Record<string, unknown>>;
}

/** The payer as API Pix names a debtor: CPF (11 digits) or CNPJ (14). */
const devedor = (payer: { name: string; taxId: string }) => ({
  ...(payer.taxId.length === 14 ? { cnpj: payer.taxId } : { cpf: payer.taxId }), nome: truncate(payer.name, 140),
});

/** `POST /rec`'s body (RecSolicitada). */
function recBody(input: RecurrenceInput, loc: number | null) {
  return {
    vinculo: { contrato: input.contract, ...(input.description ? { objeto: input.description } : {}), devedor: devedor(input.payer) },
    calendario: { dataInicial: input.startDate, ...(input.endDate ? { dataFinal: input.endDate } : {}), periodicidade: PERIODICIDADE[input.frequency] },
    valor: input.amount !== null ? { valorRec: toValor(input.amount) } : { valorMinimoRecebedor: toValor(input.minAmount!) },
    politicaRetentativa: input.retryPolicy === 'THREE_IN_7_DAYS' ? 'PERMITE_3R_7D' : 'NAO_PERMITE',
    ...(loc !== null ? { loc } : {}),
    ...(input.firstCharge ? { ativacao: { dadosJornada: { txid: input.firstCharge.txid } } } : {}),
  };
}

const RECURRENCE_ID = /^[A-Za-z0-9]{29}$/;

export function apiPixRecurrences(rt: Runtime, client: ApiPixClient): Pick<PixProvider, 'createRecurrence' | 'issueCycleCharge' | 'retryCycleCharge' | 'cancelRecurrence'> {
  const receiver = rt.config.apiPix!.receiverAccount;

  /** A cobr the PSP holds already (a repeated issue, or one another process issued at the same time). */
  const findCobr = (txid: string) => client.find<CobR>(`/cobr/${txid}`, 'GET /cobr/{txid}');

  return {
    createRecurrence: async (input) => {
      let location: string | null = null;
      let locId: number | null = null;
      if (input.journey !== 'PUSH') {
        const loc = await client.request<LocRec>('POST', '/locrec', 'POST /locrec');
        if (typeof loc.id !== 'number' || typeof loc.location !== 'string' || loc.location === '') {
          throw new ApiPixError('API Pix POST /locrec: answer without id or location', null);
        }
        locId = loc.id;
        location = loc.location;
      }
      const rec = await client.request<Rec>('POST', '/rec', 'POST /rec', recBody(input, locId));
      if (typeof rec.idRec !== 'string' || !RECURRENCE_ID.test(rec.idRec)) throw new ApiPixError('API Pix POST /rec: answer without idRec', null);
      if (input.journey === 'PUSH') {
        const account = input.payerAccount!;
        await client.request('POST', '/solicrec', 'POST /solicrec', {
          idRec: rec.idRec,
          calendario: { dataExpiracaoSolicitacao: input.requestExpiresAt!.toISOString() },
          destinatario: {
            ispbParticipante: account.ispb, agencia: account.branch, conta: account.account,
            ...(input.payer.taxId.length === 14 ? { cnpj: input.payer.taxId } : { cpf: input.payer.taxId }),
          },
        });
        return { providerRef: rec.idRec, brCode: null };
      }
      // The code is built from the location as BCB's examples show it (`dadosQR` of GET /rec gives the same).
      const brCode = input.journey === 'QR'
        ? buildRecurrenceBrCode({ recurrenceLocation: location!, merchantName: input.merchant.name, merchantCity: input.merchant.city })
        : withRecurrence(input.firstCharge!.brCode, location!);
      return { providerRef: rec.idRec, brCode };
    },

    // Asked first, so a repeated issue (a retried job, the sweep completing a claim) sends no second PUT.
    issueCycleCharge: async (input) => {
      if (await findCobr(input.txid)) return;
      const body = {
        idRec: input.providerRef,
        ...(input.description ? { infoAdicional: truncate(input.description, 140) } : {}),
        calendario: { dataDeVencimento: input.dueDate },
        valor: { original: toValor(input.amount) },
        // The due date is already a business day (docs/contract/subscriptions.md#cycle-charges): nothing to move.
        ajusteDiaUtil: true,
        recebedor: { agencia: receiver.agency, conta: receiver.account, tipoConta: receiver.type },
      };
      try {
        await client.request('PUT', `/cobr/${input.txid}`, 'PUT /cobr/{txid}', body);
      } catch (err) {
        // Issued meanwhile by another run under the same txid: that is this cycle's charge.
        if (err instanceof ApiPixError && err.status === 400 && (await findCobr(input.txid))) return;
        throw err;
      }
    },

    retryCycleCharge: async (input) => {
      try {
        await client.request('POST', `/cobr/${input.txid}/retentativa/${input.date}`, 'POST /cobr/{txid}/retentativa/{data}');
      } catch (err) {
        // Asked already (a retried job): the PSP holds an attempt for that day.
        const held = err instanceof ApiPixError && err.status === 400 && (await findCobr(input.txid))?.tentativas?.some((t) => t.dataLiquidacao === input.date);
        if (!held) throw err;
      }
    },

    cancelRecurrence: async (input) => {
      for (const txid of input.txids) {
        const cobr = await findCobr(txid);
        if (!cobr || cobr.status === 'CANCELADA' || cobr.status === 'CONCLUIDA') continue;
        await client.request('PATCH', `/cobr/${txid}`, 'PATCH /cobr/{txid}', { status: 'CANCELADA' }).catch((err: unknown) => {
          // BACEN refuses to cancel a cobr on or after its first attempt's day: the payer's bank decides it then.
          if (!(err instanceof ApiPixError && err.status === 400)) throw err;
        });
      }
      const rec = await client.find<Rec>(`/rec/${input.providerRef}`, 'GET /rec/{idRec}');
      if (!rec || rec.status === 'CANCELADA' || rec.status === 'REJEITADA' || rec.status === 'EXPIRADA') return;
      await client.request('PATCH', `/rec/${input.providerRef}`, 'PATCH /rec/{idRec}', { status: 'CANCELADA' });
    },
  };
}
