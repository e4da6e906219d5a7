import { randomBytes } from 'node:crypto';
import { newEndToEndId } from '../../src/pix/index.js';
import { PSP_ISPB, problem, receivePix, type Answer, type BacenState } from './fake-psp-bacen.js';
import type { ApiPixRequest } from './fake-psp-openapi.js';

/*
 * The fake PSP's Pix Automático (BACEN API Pix 2.9.0: locrec, rec, solicrec, cobr and retries), and the test's
 * controls that play the payer and the payer's bank. Answers are built to conform to the document (the errata of
 * fake-psp-openapi.ts aside); every request and answer is checked against it by fake-psp.ts.
 */

export interface RecState {
  locrecs: Map<number, { id: number; location: string; tipo: 'rec'; criacao: string; idRec?: string }>;
  recs: Map<string, any>;
  solicrecs: Map<string, any>;
  cobrs: Map<string, any>;
}

/** The platform's own identity at the PSP (the receiver of every recurrence). */
const RECEIVER = { cnpj: '12345678000195', nome: 'Plataforma Pixgate' };

const now = () => new Date().toISOString();
const today = () => now().slice(0, 10);
const alnum = (n: number) => randomBytes(n).toString('base64').replace(/[^A-Za-z0-9]/g, '').padEnd(n, '0').slice(0, n);
const stamp = () => today().replace(/-/g, '');
const invalid = (type: string, title: string): Answer => [400, { ...problem(400, title), type: `https://pix.bcb.gov.br/api/v2/error/${type}` }];
const notFound = (type: string): Answer => [404, { ...problem(404, 'Nao encontrado'), type: `https://pix.bcb.gov.br/api/v2/error/${type}` }];

/** RecGerada / RecCompleta of a rec as the fake keeps it. */
const recView = (rec: any) => rec;

/** CobRGerada of a cobr (its history and attempts are CobRCompleta's). */
const cobrCreated = (c: any) => {
  const { tentativas: _t, pix: _p, politicaRetentativa: _r, ...rest } = c;
  return rest;
};

export function recAnswer(state: RecState, req: ApiPixRequest): Answer | null {
  const { method, path } = req;
  const body = req.body as any;
  let m: RegExpExecArray | null;
  if (path === '/locrec' && method === 'POST') {
    const id = state.locrecs.size + 1000;
    const loc = { id, location: `pix.example.com/qr/v2/rec/${randomBytes(16).toString('hex')}`, tipo: 'rec' as const, criacao: now() };
    state.locrecs.set(id, loc);
    return [201, loc];
  }
  if (path === '/rec' && method === 'POST') {
    if (body.calendario.dataInicial < today()) return invalid('RecOperacaoInvalida', 'dataInicial anterior a data de criacao');
    if ((body.valor?.valorRec === undefined) === (body.valor?.valorMinimoRecebedor === undefined)) return invalid('RecOperacaoInvalida', 'valor invalido');
    const loc = body.loc === undefined ? undefined : state.locrecs.get(body.loc);
    if (body.loc !== undefined && (!loc || loc.idRec)) return invalid('RecOperacaoInvalida', 'location inexistente ou em uso');
    const idRec = `R${body.politicaRetentativa === 'PERMITE_3R_7D' ? 'R' : 'N'}${PSP_ISPB}${stamp()}${alnum(11)}`;
    if (loc) loc.idRec = idRec;
    const rec = {
      idRec, vinculo: body.vinculo, calendario: body.calendario, valor: body.valor, politicaRetentativa: body.politicaRetentativa,
      recebedor: RECEIVER, status: 'CRIADA', atualizacao: [{ status: 'CRIADA', data: now() }],
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO', ...(body.ativacao?.dadosJornada ? { dadosJornada: body.ativacao.dadosJornada } : {}) },
      ...(loc ? { loc: { ...loc } } : {}),
    };
    state.recs.set(idRec, rec);
    return [201, recView(rec)];
  }
  if ((m = /^\/rec\/([A-Za-z0-9]{29})$/.exec(path))) {
    const rec = state.recs.get(m[1]!);
    if (!rec) return notFound('RecNaoEncontrada');
    if (method === 'GET') return [200, recView(rec)];
    if (method === 'PATCH') {
      if (['REJEITADA', 'EXPIRADA', 'CANCELADA'].includes(rec.status)) return invalid('RecOperacaoInvalida', 'recorrencia encerrada');
      setRecStatus(rec, 'CANCELADA');
      return [200, recView(rec)];
    }
  }
  if (path === '/solicrec' && method === 'POST') {
    const rec = state.recs.get(body.idRec);
    if (!rec) return notFound('RecNaoEncontrada');
    if (Date.parse(body.calendario.dataExpiracaoSolicitacao) <= Date.now()) return invalid('SolicRecOperacaoInvalida', 'expiracao no passado');
    if ([...state.solicrecs.values()].some((s) => s.idRec === body.idRec && s.status === 'CRIADA')) return invalid('SolicRecOperacaoInvalida', 'solicitacao ativa');
    const solic = {
      idSolicRec: `SC${PSP_ISPB}${stamp()}${alnum(11)}`, idRec: body.idRec, calendario: body.calendario, destinatario: body.destinatario,
      status: 'CRIADA', atualizacao: [{ status: 'CRIADA', data: now() }],
    };
    state.solicrecs.set(solic.idSolicRec, solic);
    return [201, solic];
  }
  if ((m = /^\/cobr\/([A-Za-z0-9]{26,35})$/.exec(path))) {
    const txid = m[1]!;
    const known = state.cobrs.get(txid);
    if (method === 'PUT') {
      if (known) return invalid('CobROperacaoInvalida', 'txid em uso');
      const rec = state.recs.get(body.idRec);
      if (!rec || rec.status !== 'APROVADA') return invalid('CobROperacaoInvalida', 'recorrencia nao aprovada');
      if (body.calendario.dataDeVencimento < today()) return invalid('CobROperacaoInvalida', 'vencimento anterior a criacao');
      const cobr = {
        idRec: body.idRec, txid, ...(body.infoAdicional ? { infoAdicional: body.infoAdicional } : {}),
        calendario: { criacao: today(), dataDeVencimento: body.calendario.dataDeVencimento }, valor: body.valor, ajusteDiaUtil: body.ajusteDiaUtil,
        recebedor: { ...body.recebedor, ...RECEIVER }, status: 'CRIADA', politicaRetentativa: rec.politicaRetentativa,
        atualizacao: [{ status: 'CRIADA', data: now() }], tentativas: [] as any[], pix: [] as any[],
      };
      state.cobrs.set(txid, cobr);
      return [201, cobrCreated(cobr)];
    }
    if (!known) return notFound('CobRNaoEncontrado');
    if (method === 'GET') return [200, cobrFull(known)];
    if (method === 'PATCH') {
      if (known.status !== 'CRIADA' && known.status !== 'ATIVA') return invalid('CobROperacaoInvalida', 'cobranca encerrada');
      setCobrStatus(known, 'CANCELADA');
      return [200, cobrCreated(known)];
    }
  }
  if ((m = /^\/cobr\/([A-Za-z0-9]{26,35})\/retentativa\/(\d{4}-\d{2}-\d{2})$/.exec(path)) && method === 'POST') {
    const cobr = state.cobrs.get(m[1]!);
    if (!cobr) return notFound('CobRNaoEncontrado');
    const date = m[2]!;
    if (cobr.politicaRetentativa !== 'PERMITE_3R_7D') return invalid('CobROperacaoInvalida', 'politica nao permite retentativa');
    if (date <= today()) return invalid('CobROperacaoInvalida', 'data nao e futura');
    if (cobr.tentativas.some((t: any) => t.status === 'SOLICITADA' || t.status === 'AGENDADA' || t.dataLiquidacao === date)) {
      return invalid('CobROperacaoInvalida', 'existe tentativa vigente');
    }
    cobr.tentativas.push(attempt(date, 'NTAG', 'SOLICITADA'));
    return [201, cobrFull(cobr)];
  }
  return null;
}

const attempt = (dataLiquidacao: string, tipo: string, status: string) => ({
  dataLiquidacao, tipo, status, endToEndId: newEndToEndId(PSP_ISPB, new Date()), atualizacao: [{ status, data: now() }],
});

/** CobRCompleta: without the arrays BACEN leaves out when empty. */
function cobrFull(c: any) {
  const { tentativas, pix, ...rest } = c;
  return { ...rest, ...(tentativas.length ? { tentativas } : {}), ...(pix.length ? { pix } : {}) };
}

function setRecStatus(rec: any, status: string): void {
  rec.status = status;
  rec.atualizacao.push({ status, data: now() });
}

function setCobrStatus(cobr: any, status: string): void {
  cobr.status = status;
  cobr.atualizacao.push({ status, data: now() });
}

/** The test's controls: the payer at their bank, and the payer's bank debiting. */
export function recControls(state: RecState & BacenState) {
  const rec = (idRec: string) => {
    const found = state.recs.get(idRec);
    if (!found) throw new Error(`the fake PSP has no rec ${idRec}`);
    return found;
  };
  return {
    /** The payer authorizes (journey 1: the request; 2 and 3: the code). */
    approveRec(idRec: string, tipoJornada = 'JORNADA_2') {
      const r = rec(idRec);
      setRecStatus(r, 'APROVADA');
      r.ativacao.tipoJornada = tipoJornada;
    },
    rejectRec: (idRec: string) => setRecStatus(rec(idRec), 'REJEITADA'),
    cancelRecByPayer: (idRec: string) => setRecStatus(rec(idRec), 'CANCELADA'),
    /**
     * The payer's bank runs the debit due (the attempt asked for, else the one of the due date): `PAGA` settles the
     * PIX (GET /pix knows it from then on), anything else is a rejection with that code. Answers the attempt.
     */
    debitCobr(txid: string, outcome: 'PAGA' | string) {
      const cobr = state.cobrs.get(txid);
      if (!cobr) throw new Error(`the fake PSP has no cobr ${txid}`);
      let current = cobr.tentativas.find((t: any) => t.status === 'SOLICITADA' || t.status === 'AGENDADA');
      if (!current) cobr.tentativas.push((current = attempt(cobr.calendario.dataDeVencimento, 'AGND', 'AGENDADA')));
      if (cobr.status === 'CRIADA') setCobrStatus(cobr, 'ATIVA');
      current.status = outcome === 'PAGA' ? 'PAGA' : 'REJEITADA';
      current.atualizacao.push({ status: current.status, data: now() });
      if (outcome === 'PAGA') {
        const pix = receivePix(state, { endToEndId: current.endToEndId, txid, valor: cobr.valor.original });
        cobr.pix.push({ endToEndId: pix.endToEndId, txid, valor: pix.valor, horario: pix.horario });
        setCobrStatus(cobr, 'CONCLUIDA');
      } else {
        current.rejeicao = { codigo: outcome, descricao: 'Rejeitada pelo PSP pagador' };
      }
      return current;
    },
    /** The PSP gives up on a cobr (no attempt left). */
    expireCobr: (txid: string) => setCobrStatus(state.cobrs.get(txid), 'EXPIRADA'),
  };
}
