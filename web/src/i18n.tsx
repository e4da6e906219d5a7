import { createContext, useContext, useState, type ReactNode } from 'react';

/** Portuguese is the reference; English must have every key (the type says so). */
const pt = {
  appName: 'Pixgate',
  language: 'Idioma',
  nav: { overview: 'Visão geral', charges: 'Cobranças', newCharge: 'Nova cobrança', customers: 'Clientes', withdrawals: 'Saques', webhooks: 'Webhooks', events: 'Eventos', statement: 'Extrato', apiKeys: 'Chaves de API', team: 'Equipe', account: 'Minha conta', logout: 'Sair', menu: 'Menu', soon: 'em breve' },
  common: { save: 'Salvar', cancel: 'Cancelar', confirm: 'Confirmar', close: 'Fechar', loading: 'Carregando…', empty: 'Nada por aqui ainda.', next: 'Próxima página', prev: 'Página anterior', filter: 'Filtrar', clear: 'Limpar', all: 'Todos', copy: 'Copiar', copied: 'Copiado!', back: 'Voltar', details: 'Detalhes', created: 'Criado em', status: 'Situação', amount: 'Valor', id: 'ID', actions: 'Ações', error: 'Algo deu errado', shownOnce: 'Copie agora: ele não será mostrado de novo.', yes: 'Sim', no: 'Não', name: 'Nome', email: 'E-mail', role: 'Papel', description: 'Descrição', refresh: 'Atualizar' },
  login: { title: 'Entrar no painel', email: 'E-mail', password: 'Senha', totp: 'Código do autenticador (6 dígitos)', totpHint: 'Abra seu aplicativo autenticador e digite o código atual.', submit: 'Entrar', expired: 'Sua sessão terminou. Entre de novo para continuar.', demoHint: 'Primeiro acesso? O usuário de demonstração é impresso no terminal ao iniciar o Pixgate.' },
  invite: { title: 'Aceitar convite', intro: 'Escolha uma senha para entrar no painel.', name: 'Seu nome (opcional)', password: 'Senha (12 a 128 caracteres)', confirm: 'Repita a senha', mismatch: 'As senhas não conferem', submit: 'Criar acesso', done: 'Acesso criado. Entre com seu e-mail e a senha escolhida.', goLogin: 'Ir para o login' },
  overview: { title: 'Visão geral', available: 'Disponível', pending: 'Em processamento', blocked: 'Bloqueado', availableHint: 'Pode ser sacado ou usado em estornos', pendingHint: 'Reservado para saques em andamento', blockedHint: 'Retido por contestações (MED)', chart: 'Recebido por dia (últimos 30 dias)', received: 'Recebido', totalReceived: 'Total em 30 dias', fromCharges: 'calculado das cobranças pagas' },
  charges: { title: 'Cobranças', new: 'Nova cobrança', statusFilter: 'Situação', idFilter: 'ID da cobrança', emailFilter: 'E-mail do cliente', customer: 'Cliente', expiresAt: 'Expira em', paidAt: 'Paga em', fee: 'Taxa', net: 'Líquido', txid: 'TXID', end2endId: 'ID fim a fim', qr: 'QR Code PIX', copyPaste: 'PIX copia e cola', history: 'Histórico', refund: 'Estornar', refundConfirm: 'Estornar o valor total desta cobrança? O valor sai do seu saldo disponível.', simulate: 'Simular pagamento', simulateHint: 'Modo de teste: paga esta cobrança no simulador.', refundState: 'Estorno', open: 'Abrir', notFound: 'Cobrança não encontrada' },
  status: { PENDING: 'Pendente', PAID: 'Paga', EXPIRED: 'Expirada', REFUNDED: 'Estornada', DISPUTED: 'Em contestação', PROCESSING: 'Processando', COMPLETED: 'Concluído', FAILED: 'Falhou', SUCCEEDED: 'Entregue' } as Record<string, string>,
  history: { created: 'Criada', paid: 'Paga', expired: 'Expirou', refundRequested: 'Estorno solicitado', refundCompleted: 'Estorno concluído', refundFailed: 'Estorno falhou', disputed: 'Contestação aberta' },
  newCharge: { title: 'Nova cobrança', amount: 'Valor (R$)', amountHint: 'Mínimo R$ 1,00', description: 'Descrição (opcional)', customerId: 'ID do cliente (opcional)', expiresIn: 'Validade em minutos (opcional)', submit: 'Criar cobrança', invalidAmount: 'amount: informe um valor como 10,50' },
  customers: { title: 'Clientes', new: 'Novo cliente', taxId: 'CPF ou CNPJ (só números, opcional)', phone: 'Telefone (opcional)', name: 'Nome (opcional)', email: 'E-mail', submit: 'Cadastrar cliente', remove: 'Excluir', removeConfirm: 'Excluir este cliente?', search: 'Buscar por e-mail' },
  withdrawals: { title: 'Saques', new: 'Solicitar saque', amount: 'Valor a receber (R$)', pixKey: 'Chave PIX de destino', pixKeyType: 'Tipo da chave', description: 'Descrição (opcional)', taxId: 'CPF/CNPJ do recebedor (opcional)', review: 'Revisar saque', confirmTitle: 'Confirme o saque', fee: 'Tarifa de saque', total: 'Sai do disponível', after: 'Saldo disponível depois', feeContract: 'Tarifa do seu contrato, cobrada além do valor a receber.', receive: 'Valor a receber', submit: 'Confirmar saque', failedReason: 'Motivo da falha', completedAt: 'Concluído em', insufficient: 'O saldo disponível não cobre valor + taxa.' },
  webhooks: { title: 'Webhooks', new: 'Novo endpoint', url: 'URL (HTTPS)', events: 'Eventos', submit: 'Criar endpoint', secret: 'Segredo de assinatura', deliveries: 'Entregas', endpoint: 'Endpoint de webhook', attempt: 'Tentativa', code: 'HTTP', duration: 'Duração', ok: 'OK', failed: 'Falhou', remove: 'Excluir', removeConfirm: 'Excluir este endpoint? Ele deixa de receber eventos.', test: 'Enviar teste', redeliver: 'Reenviar', recover: 'Recuperar falhas', recoverSince: 'Reenviar falhas desde', rotate: 'Trocar segredo', rotateConfirm: 'Gerar um novo segredo? O anterior continua valendo por 24 horas.', newSecret: 'Novo segredo', queued: 'Na fila', manual: 'manual', event: 'Evento' },
  events: { title: 'Eventos', type: 'Tipo', delivery: 'Entrega', payload: 'Conteúdo (JSON)', pending: 'pendentes', succeeded: 'entregues', failed: 'falharam', none: 'nenhum endpoint', after: 'De', before: 'Até' },
  statement: { title: 'Extrato', account: 'Conta', from: 'De (data)', to: 'Até (data)', balanceAfter: 'Saldo após', type: 'Tipo', csv: 'Baixar CSV', ofx: 'Baixar OFX', types: {
    CHARGE_PAID: 'Cobrança recebida', SPLIT_RECEIVED: 'Repasse recebido (split)', REFUND: 'Estorno', REFUND_REVERSED: 'Estorno devolvido (falhou)',
    WITHDRAWAL: 'Saque', WITHDRAWAL_COMPLETED: 'Saque concluído', WITHDRAWAL_RETURNED: 'Saque devolvido', DISPUTE_BLOCKED: 'Bloqueio por contestação (MED)',
    DISPUTE_RELEASED: 'Contestação encerrada: valor liberado', DISPUTE_RETURNED: 'Contestação: valor devolvido ao pagador',
  } as Record<string, string>, accounts: { available: 'Disponível', pending: 'Em processamento', blocked: 'Bloqueado' } as Record<string, string> },
  apiKeys: { title: 'Chaves de API', new: 'Nova chave', name: 'Nome da chave', submit: 'Criar chave', last4: 'Final', lastUsed: 'Último uso', revoked: 'Revogada em', revoke: 'Revogar', revokeConfirm: 'Revogar esta chave? Integrações que a usam param na hora.', key: 'Sua nova chave', active: 'Ativa',
    role: 'Papel da chave', createdBy: 'Criada por', operator: 'Operador da plataforma', removedUser: 'pessoa removida',
    roles: { FULL: 'Completa (tudo, menos chaves e equipe)', FINANCE: 'Financeiro', DEVELOPER: 'Desenvolvedor', VIEWER: 'Leitura' } as Record<string, string> },
  team: { title: 'Equipe', invite: 'Convidar pessoa', name: 'Nome', email: 'E-mail', role: 'Papel', submit: 'Gerar convite', link: 'Link do convite (válido por 72 h). Envie para a pessoa:', changeRole: 'Alterar papel', remove: 'Remover', removeConfirm: 'Remover esta pessoa? A sessão dela termina na hora.', you: 'você', lastLogin: 'Último acesso', roles: { OWNER: 'Dono', DEVELOPER: 'Desenvolvedor', FINANCE: 'Financeiro', VIEWER: 'Leitura' } as Record<string, string> },
  /** The API speaks English; the commonest answers read in Portuguese too (by message, else by code). */
  apiErrors: {
    'Invalid email or password': 'E-mail ou senha incorretos',
    'totp: invalid': 'Código inválido ou já usado',
    'code: invalid': 'Código inválido ou já usado',
    'currentPassword: invalid': 'Senha atual incorreta',
    'email: already registered': 'Este e-mail já tem acesso ao Pixgate',
    'role: the last OWNER cannot be removed or demoted': 'A loja precisa de ao menos um Dono',
    INSUFFICIENT_BALANCE: 'Saldo disponível insuficiente',
    WITHDRAWAL_IN_PROGRESS: 'Já existe um saque em andamento',
    RATE_LIMITED: 'Muitas tentativas: aguarde um pouco e tente de novo',
    FORBIDDEN: 'Seu papel não permite esta ação',
    NOT_FOUND: 'Não encontrado',
    NETWORK: 'O servidor não respondeu',
  } as Record<string, string>,
  account: { title: 'Minha conta', password: 'Trocar senha', current: 'Senha atual', newPassword: 'Nova senha (12 a 128 caracteres)', savePassword: 'Salvar nova senha', passwordSaved: 'Senha alterada. Suas outras sessões foram encerradas.', totp: 'Verificação em duas etapas (TOTP)', totpOn: 'Ativada', totpOff: 'Desativada', enroll: 'Ativar autenticador', scan: 'Escaneie o QR Code no seu aplicativo autenticador, ou digite o segredo:', code: 'Código de 6 dígitos', secret: 'Segredo', confirmTotp: 'Confirmar e ativar', disable: 'Desativar', totpEnabled: 'Verificação em duas etapas ativada.', totpDisabled: 'Verificação em duas etapas desativada.' },
};

export type Dict = typeof pt;

const en: Dict = {
  appName: 'Pixgate',
  language: 'Language',
  nav: { overview: 'Overview', charges: 'Charges', newCharge: 'New charge', customers: 'Customers', withdrawals: 'Withdrawals', webhooks: 'Webhooks', events: 'Events', statement: 'Statement', apiKeys: 'API keys', team: 'Team', account: 'My account', logout: 'Log out', menu: 'Menu', soon: 'soon' },
  common: { save: 'Save', cancel: 'Cancel', confirm: 'Confirm', close: 'Close', loading: 'Loading…', empty: 'Nothing here yet.', next: 'Next page', prev: 'Previous page', filter: 'Filter', clear: 'Clear', all: 'All', copy: 'Copy', copied: 'Copied!', back: 'Back', details: 'Details', created: 'Created', status: 'Status', amount: 'Amount', id: 'ID', actions: 'Actions', error: 'Something went wrong', shownOnce: 'Copy it now: it will not be shown again.', yes: 'Yes', no: 'No', name: 'Name', email: 'E-mail', role: 'Role', description: 'Description', refresh: 'Refresh' },
  login: { title: 'Log in to the dashboard', email: 'E-mail', password: 'Password', totp: 'Authenticator code (6 digits)', totpHint: 'Open your authenticator app and type the current code.', submit: 'Log in', expired: 'Your session ended. Log in again to continue.', demoHint: 'First time? The demo user is printed in the terminal when Pixgate starts.' },
  invite: { title: 'Accept invitation', intro: 'Choose a password to log in to the dashboard.', name: 'Your name (optional)', password: 'Password (12 to 128 characters)', confirm: 'Repeat the password', mismatch: 'The passwords do not match', submit: 'Create access', done: 'Access created. Log in with your e-mail and the password you chose.', goLogin: 'Go to login' },
  overview: { title: 'Overview', available: 'Available', pending: 'Pending', blocked: 'Blocked', availableHint: 'Can be withdrawn or used for refunds', pendingHint: 'Reserved for withdrawals in progress', blockedHint: 'Held by disputes (MED)', chart: 'Received per day (last 30 days)', received: 'Received', totalReceived: 'Total over 30 days', fromCharges: 'computed from paid charges' },
  charges: { title: 'Charges', new: 'New charge', statusFilter: 'Status', idFilter: 'Charge ID', emailFilter: 'Customer e-mail', customer: 'Customer', expiresAt: 'Expires', paidAt: 'Paid', fee: 'Fee', net: 'Net', txid: 'TXID', end2endId: 'End-to-end ID', qr: 'PIX QR code', copyPaste: 'PIX copy and paste', history: 'History', refund: 'Refund', refundConfirm: 'Refund the whole amount of this charge? It leaves your available balance.', simulate: 'Simulate payment', simulateHint: 'Test mode: pays this charge in the simulator.', refundState: 'Refund', open: 'Open', notFound: 'Charge not found' },
  status: { PENDING: 'Pending', PAID: 'Paid', EXPIRED: 'Expired', REFUNDED: 'Refunded', DISPUTED: 'Disputed', PROCESSING: 'Processing', COMPLETED: 'Completed', FAILED: 'Failed', SUCCEEDED: 'Delivered' },
  history: { created: 'Created', paid: 'Paid', expired: 'Expired', refundRequested: 'Refund requested', refundCompleted: 'Refund completed', refundFailed: 'Refund failed', disputed: 'Dispute opened' },
  newCharge: { title: 'New charge', amount: 'Amount (R$)', amountHint: 'At least R$ 1,00', description: 'Description (optional)', customerId: 'Customer ID (optional)', expiresIn: 'Valid for minutes (optional)', submit: 'Create charge', invalidAmount: 'amount: type an amount such as 10,50' },
  customers: { title: 'Customers', new: 'New customer', taxId: 'CPF or CNPJ (digits only, optional)', phone: 'Phone (optional)', name: 'Name (optional)', email: 'E-mail', submit: 'Add customer', remove: 'Delete', removeConfirm: 'Delete this customer?', search: 'Search by e-mail' },
  withdrawals: { title: 'Withdrawals', new: 'Request a withdrawal', amount: 'Amount to receive (R$)', pixKey: 'Destination PIX key', pixKeyType: 'Key type', description: 'Description (optional)', taxId: 'Recipient CPF/CNPJ (optional)', review: 'Review withdrawal', confirmTitle: 'Confirm the withdrawal', fee: 'Withdrawal fee', total: 'Leaves available', after: 'Available balance afterwards', feeContract: 'Your contract fee, charged on top of the amount to receive.', receive: 'Amount to receive', submit: 'Confirm withdrawal', failedReason: 'Failure reason', completedAt: 'Completed', insufficient: 'The available balance does not cover amount + fee.' },
  webhooks: { title: 'Webhooks', new: 'New endpoint', url: 'URL (HTTPS)', events: 'Events', submit: 'Create endpoint', secret: 'Signing secret', deliveries: 'Deliveries', endpoint: 'Webhook endpoint', attempt: 'Attempt', code: 'HTTP', duration: 'Duration', ok: 'OK', failed: 'Failed', remove: 'Delete', removeConfirm: 'Delete this endpoint? It stops receiving events.', test: 'Send test', redeliver: 'Redeliver', recover: 'Recover failures', recoverSince: 'Redeliver failures since', rotate: 'Rotate secret', rotateConfirm: 'Generate a new secret? The previous one keeps working for 24 hours.', newSecret: 'New secret', queued: 'Queued', manual: 'manual', event: 'Event' },
  events: { title: 'Events', type: 'Type', delivery: 'Delivery', payload: 'Payload (JSON)', pending: 'pending', succeeded: 'delivered', failed: 'failed', none: 'no endpoint', after: 'From', before: 'Until' },
  statement: { title: 'Statement', account: 'Account', from: 'From (date)', to: 'To (date)', balanceAfter: 'Balance after', type: 'Type', csv: 'Download CSV', ofx: 'Download OFX', types: {
    CHARGE_PAID: 'Charge received', SPLIT_RECEIVED: 'Split share received', REFUND: 'Refund', REFUND_REVERSED: 'Refund returned (failed)',
    WITHDRAWAL: 'Withdrawal', WITHDRAWAL_COMPLETED: 'Withdrawal completed', WITHDRAWAL_RETURNED: 'Withdrawal returned', DISPUTE_BLOCKED: 'Blocked by a dispute (MED)',
    DISPUTE_RELEASED: 'Dispute closed: released', DISPUTE_RETURNED: 'Dispute: returned to the payer',
  }, accounts: { available: 'Available', pending: 'Pending', blocked: 'Blocked' } },
  apiKeys: { title: 'API keys', new: 'New key', name: 'Key name', submit: 'Create key', last4: 'Ends in', lastUsed: 'Last used', revoked: 'Revoked', revoke: 'Revoke', revokeConfirm: 'Revoke this key? Integrations using it stop at once.', key: 'Your new key', active: 'Active',
    role: 'Key role', createdBy: 'Made by', operator: 'Platform operator', removedUser: 'removed user',
    roles: { FULL: 'Full (all but keys and the team)', FINANCE: 'Finance', DEVELOPER: 'Developer', VIEWER: 'Viewer' } },
  team: { title: 'Team', invite: 'Invite someone', name: 'Name', email: 'E-mail', role: 'Role', submit: 'Create invitation', link: 'Invitation link (valid 72 h). Send it to the person:', changeRole: 'Change role', remove: 'Remove', removeConfirm: 'Remove this person? Their session ends at once.', you: 'you', lastLogin: 'Last login', roles: { OWNER: 'Owner', DEVELOPER: 'Developer', FINANCE: 'Finance', VIEWER: 'Viewer' } },
  apiErrors: {},
  account: { title: 'My account', password: 'Change password', current: 'Current password', newPassword: 'New password (12 to 128 characters)', savePassword: 'Save new password', passwordSaved: 'Password changed. Your other sessions were ended.', totp: 'Two-step verification (TOTP)', totpOn: 'On', totpOff: 'Off', enroll: 'Set up authenticator', scan: 'Scan the QR code with your authenticator app, or type the secret:', code: '6-digit code', secret: 'Secret', confirmTotp: 'Confirm and turn on', disable: 'Turn off', totpEnabled: 'Two-step verification is on.', totpDisabled: 'Two-step verification is off.' },
};

export type Lang = 'pt-BR' | 'en';
const DICTS: Record<Lang, Dict> = { 'pt-BR': pt, en };
const STORAGE = 'pxg_lang';

const LangContext = createContext<{ lang: Lang; t: Dict; setLang(l: Lang): void }>({ lang: 'pt-BR', t: pt, setLang: () => {} });

export function LangProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(() => (localStorage.getItem(STORAGE) === 'en' ? 'en' : 'pt-BR'));
  const setLang = (l: Lang) => {
    localStorage.setItem(STORAGE, l);
    document.documentElement.lang = l;
    setLangState(l);
  };
  return <LangContext.Provider value={{ lang, t: DICTS[lang], setLang }}>{children}</LangContext.Provider>;
}

export const useLang = () => useContext(LangContext);
export const useT = () => useContext(LangContext).t;
