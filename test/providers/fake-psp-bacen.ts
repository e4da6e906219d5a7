import { buildDynamicBrCode, buildStaticBrCode, newEndToEndId } from '../../src/pix/index.js';
import type { ApiPixRequest } from './fake-psp-openapi.js';

/** The fake PSP's records of BACEN's API Pix resources, and its answers to the API Pix routes. */
export const PSP_ISPB = '12345678';

export interface Devolucao { id: string; rtrId: string; valor: string; status: string; motivo?: string; horario: { solicitacao: string; liquidacao?: string } }
/** API Pix `Pix` as the PSP keeps it; `pagador` is the extension some PSPs add (the standard has none). */
export interface ReceivedPix {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario: string;
  infoPagador?: string;
  pagador?: { nome?: string; cpf?: string; cnpj?: string };
  /** What the valor is made of; the PSP reports it for a cobv's payment (multa, juros, abatimento, desconto). */
  componentesValor?: Record<string, { valor: string }>;
}

export interface BacenState {
  /** Cobs and cobvs by txid, as the fake answered them. */
  cobs: Map<string, any>;
  /** Received PIX by endToEndId. */
  received: Map<string, ReceivedPix>;
  /** Devoluções by `${endToEndId}/${id}`. */
  devolucoes: Map<string, Devolucao>;
}

export type Answer = [status: number, body: unknown];

export const problem = (status: number, title: string) => ({ type: `https://pix.bcb.gov.br/api/v2/error/${title.replace(/\W/g, '')}`, title, status });

const cents = (valor: string) => Math.round(Number(valor) * 100);

/** A PIX the PSP received: what `GET /pix/{e2eid}` and `GET /pix` answer from then on. */
export function receivePix(state: BacenState, p: Omit<ReceivedPix, 'endToEndId' | 'horario'> & { endToEndId?: string; horario?: string | Date }): ReceivedPix {
  const horario = p.horario instanceof Date ? p.horario.toISOString() : p.horario ?? new Date().toISOString();
  const pix: ReceivedPix = { ...p, endToEndId: p.endToEndId ?? newEndToEndId('87654321', new Date(horario)), horario };
  state.received.set(pix.endToEndId, pix);
  return pix;
}

function withDevolucoes(state: BacenState, pix: ReceivedPix) {
  const devolucoes = [...state.devolucoes.entries()].filter(([k]) => k.startsWith(`${pix.endToEndId}/`)).map(([, d]) => d);
  return devolucoes.length ? { ...pix, devolucoes } : pix;
}

/** `GET /pix?inicio&fim`: the PIX whose horario lies in [inicio, fim], oldest first, one page of them. */
function listPix(state: BacenState, q: Record<string, string>): Answer {
  const from = Date.parse(q.inicio!);
  const to = Date.parse(q.fim!);
  const page = Number(q['paginacao.paginaAtual'] ?? 0);
  const size = Number(q['paginacao.itensPorPagina'] ?? 100);
  const all = [...state.received.values()]
    .filter((p) => Date.parse(p.horario) >= from && Date.parse(p.horario) <= to)
    .sort((a, b) => Date.parse(a.horario) - Date.parse(b.horario) || a.endToEndId.localeCompare(b.endToEndId));
  return [200, {
    parametros: {
      inicio: q.inicio, fim: q.fim,
      paginacao: { paginaAtual: page, itensPorPagina: size, quantidadeDePaginas: Math.max(1, Math.ceil(all.length / size)), quantidadeTotalDeItens: all.length },
    },
    // Required by the document's PixConsultados schema as published (see fake-psp-openapi.ts).
    cobs: [],
    pix: all.slice(page * size, page * size + size).map((p) => withDevolucoes(state, p)),
  }];
}

/** The API Pix routes the adapter uses; null for a route not served here. */
export function bacenAnswer(state: BacenState, req: ApiPixRequest): Answer | null {
  const { method, path, body } = req as ApiPixRequest & { body: any };
  const now = new Date().toISOString();
  let m: RegExpExecArray | null;
  if ((m = /^\/cob\/([A-Za-z0-9]+)$/.exec(path)) && method === 'PUT') {
    const txid = m[1]!;
    const cob = {
      ...body, calendario: { criacao: now, expiracao: body.calendario.expiracao }, txid, revisao: 0, status: 'ATIVA',
      location: `pix.example.com/qr/v2/${txid}`,
      pixCopiaECola: buildStaticBrCode({ pixKey: body.chave, amount: 100, merchantName: 'PSP', merchantCity: 'SAO PAULO', txid: txid.slice(0, 25) }),
    };
    state.cobs.set(txid, cob);
    return [201, cob];
  }
  if ((m = /^\/cobv\/([A-Za-z0-9]+)$/.exec(path)) && method === 'PUT') {
    const txid = m[1]!;
    const location = `pix.example.com/qr/v2/cobv/${txid.slice(0, 20)}`;
    const cobv = {
      ...body, txid, revisao: 0, status: 'ATIVA',
      calendario: { criacao: now, ...body.calendario, validadeAposVencimento: body.calendario.validadeAposVencimento ?? 30 },
      loc: { id: state.cobs.size + 1, txid, location, tipoCob: 'cobv', criacao: now },
      location,
      // The PSP's own client, as it registered with it.
      recebedor: { cnpj: '56989000019533', nome: 'Empresa de Logistica SA', logradouro: 'Rua 15 Numero 1200', cidade: 'Sao Paulo', uf: 'SP', cep: '70800100' },
      pixCopiaECola: buildDynamicBrCode({ location, merchantName: 'PSP', merchantCity: 'SAO PAULO' }),
    };
    state.cobs.set(txid, cobv);
    return [201, cobv];
  }
  if (path === '/pix' && method === 'GET') return listPix(state, req.query);
  if ((m = /^\/pix\/([A-Za-z0-9]{32})$/.exec(path)) && method === 'GET') {
    const pix = state.received.get(m[1]!);
    return pix ? [200, withDevolucoes(state, pix)] : [404, problem(404, 'Pix nao encontrado')];
  }
  if ((m = /^\/pix\/([A-Za-z0-9]{32})\/devolucao\/([A-Za-z0-9]{1,35})$/.exec(path))) {
    const key = `${m[1]}/${m[2]}`;
    const known = state.devolucoes.get(key);
    if (method === 'GET') return known ? [200, known] : [404, problem(404, 'Devolucao nao encontrada')];
    if (method === 'PUT') {
      const pix = state.received.get(m[1]!);
      if (!pix) return [404, problem(404, 'Pix nao encontrado')];
      if (known) return [400, problem(400, 'Id de devolucao ja utilizado')];
      if (cents(body.valor) > cents(pix.valor)) return [400, problem(400, 'Valor da devolucao maior que o do Pix')];
      const d: Devolucao = { id: m[2]!, rtrId: newEndToEndId(PSP_ISPB, new Date()).replace(/^E/, 'D'), valor: body.valor, status: 'EM_PROCESSAMENTO', horario: { solicitacao: now } };
      state.devolucoes.set(key, d);
      return [201, d];
    }
  }
  return null;
}
