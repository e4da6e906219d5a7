import { createContext, useContext, useState, type ReactNode } from 'react';

/** Portuguese is the reference; English must have every key (the type says so). */
const pt = {
  appName: 'Pixgate',
  language: 'Idioma',
  nav: { overview: 'Visão geral', charges: 'Cobranças', newCharge: 'Nova cobrança', checkouts: 'Checkouts', paymentLinks: 'Links de pagamento', subscriptions: 'Assinaturas', customers: 'Clientes', withdrawals: 'Saques', webhooks: 'Webhooks', events: 'Eventos', statement: 'Extrato', apiKeys: 'Chaves de API', team: 'Equipe', account: 'Minha conta', logout: 'Sair', menu: 'Menu', soon: 'em breve' },
  common: { save: 'Salvar', cancel: 'Cancelar', confirm: 'Confirmar', close: 'Fechar', loading: 'Carregando…', empty: 'Nada por aqui ainda.', next: 'Próxima página', prev: 'Página anterior', filter: 'Filtrar', clear: 'Limpar', all: 'Todos', copy: 'Copiar', copied: 'Copiado!', back: 'Voltar', details: 'Detalhes', created: 'Criado em', status: 'Situação', amount: 'Valor', id: 'ID', actions: 'Ações', error: 'Algo deu errado', shownOnce: 'Copie agora: ele não será mostrado de novo.', yes: 'Sim', no: 'Não', name: 'Nome', email: 'E-mail', role: 'Papel', description: 'Descrição', refresh: 'Atualizar', previewStale: 'A prévia mostra o último rascunho aceito' },
  login: { title: 'Entrar no painel', email: 'E-mail', password: 'Senha', totp: 'Código do autenticador (6 dígitos)', totpHint: 'Abra seu aplicativo autenticador e digite o código atual.', submit: 'Entrar', expired: 'Sua sessão terminou. Entre de novo para continuar.', demoHint: 'Primeiro acesso? O usuário de demonstração é impresso no terminal ao iniciar o Pixgate.' },
  invite: { title: 'Aceitar convite', intro: 'Escolha uma senha para entrar no painel.', name: 'Seu nome (opcional)', password: 'Senha (12 a 128 caracteres)', confirm: 'Repita a senha', mismatch: 'As senhas não conferem', submit: 'Criar acesso', done: 'Acesso criado. Entre com seu e-mail e a senha escolhida.', goLogin: 'Ir para o login' },
  overview: { title: 'Visão geral', available: 'Disponível', pending: 'Em processamento', blocked: 'Bloqueado', availableHint: 'Pode ser sacado ou usado em estornos', pendingHint: 'Reservado para saques em andamento', blockedHint: 'Retido por contestações (MED)', chart: 'Recebido por dia (últimos 30 dias)', received: 'Recebido', totalReceived: 'Total em 30 dias', fromCharges: 'calculado das cobranças pagas', activeSubscriptions: 'Assinaturas ativas', seeSubscriptions: 'Ver assinaturas' },
  charges: { title: 'Cobranças', new: 'Nova cobrança', statusFilter: 'Situação', idFilter: 'ID da cobrança', emailFilter: 'E-mail do cliente', customer: 'Cliente', expiresAt: 'Expira em', paidAt: 'Paga em', fee: 'Taxa', net: 'Líquido', txid: 'TXID', end2endId: 'ID fim a fim', qr: 'QR Code PIX', copyPaste: 'PIX copia e cola', history: 'Histórico', refund: 'Estornar', refundConfirm: 'Estornar o valor total desta cobrança? O valor sai do seu saldo disponível.', simulate: 'Simular pagamento', simulateHint: 'Modo de teste: paga esta cobrança no simulador.', refundState: 'Estorno', open: 'Abrir', notFound: 'Cobrança não encontrada' },
  status: { PENDING: 'Pendente', PAID: 'Paga', EXPIRED: 'Expirada', REFUNDED: 'Estornada', DISPUTED: 'Em contestação', PROCESSING: 'Processando', COMPLETED: 'Concluído', FAILED: 'Falhou', SUCCEEDED: 'Entregue', ACTIVE: 'Ativo', INACTIVE: 'Desativado' } as Record<string, string>,
  history: { created: 'Criada', paid: 'Paga', expired: 'Expirou', refundRequested: 'Estorno solicitado', refundCompleted: 'Estorno concluído', refundFailed: 'Estorno falhou', disputed: 'Contestação aberta' },
  newCharge: { title: 'Nova cobrança', amount: 'Valor (R$)', amountHint: 'Mínimo R$ 1,00', description: 'Descrição (opcional)', customerId: 'ID do cliente (opcional)', expiresIn: 'Validade em minutos (opcional)', submit: 'Criar cobrança', invalidAmount: 'amount: informe um valor como 10,50' },
  checkouts: { title: 'Checkouts', intro: 'Carrinhos pagos na página de pagamento do Pixgate; cada um é dono de uma cobrança PIX.', statusFilter: 'Situação', linkFilter: 'ID do link de pagamento', customer: 'Cliente', items: 'Itens', item: 'Item', quantity: 'Qtd.', unitPrice: 'Preço unitário', lineTotal: 'Valor', total: 'Total', payPage: 'Página de pagamento', openPayPage: 'Abrir página', open: 'Abrir', details: 'Detalhes', externalId: 'ID externo', paymentLink: 'Link de pagamento', completionUrl: 'URL de conclusão', returnUrl: 'URL de retorno', expiresAt: 'Expira em', paidAt: 'Pago em', charge: 'Cobrança do checkout', chargeHint: 'Taxa, pagamento, estorno e contestação são os da cobrança.', openCharge: 'Ver cobrança', fee: 'Taxa', net: 'Líquido', end2endId: 'ID fim a fim', txid: 'TXID', refund: 'Estornar', refundConfirm: 'Estornar o valor total deste checkout? O valor sai do seu saldo disponível e volta para o pagador.', refundState: 'Estorno' },
  links: { title: 'Links de pagamento', intro: 'Um link reutilizável: cada pagador que o abre recebe um checkout próprio.', new: 'Novo link', newTitle: 'Novo link de pagamento', name: 'Nome (aparece na página)', namePlaceholder: 'Nome do link', description: 'Descrição (opcional)', priceKind: 'Preço', kinds: { amount: 'Valor fixo', range: 'O pagador digita o valor', items: 'Itens' } as Record<string, string>, amount: 'Valor (R$)', min: 'Mínimo (R$)', max: 'Máximo (R$)', itemName: 'Item', itemQty: 'Quantidade', itemPrice: 'Preço unitário (R$)', addItem: 'Adicionar item', removeItem: 'Remover item', customerFields: 'Dados que o pagador preenche', fields: { name: 'Nome', email: 'E-mail', taxId: 'CPF ou CNPJ', phone: 'Telefone' } as Record<string, string>, limits: 'Limites (opcionais)', maxPayments: 'Máximo de pagamentos', activeUntil: 'Aceita pagamentos até o dia (horário de Brasília)', completionUrl: 'Depois de pagar, levar o pagador para (URL, opcional)', checkoutMinutes: 'Prazo para pagar cada checkout, em minutos (5 a 1440; padrão 60)', submit: 'Criar link', preview: 'Prévia da página do link', previewHint: 'É a própria página que o pagador abre, desenhada pelo servidor (largura de celular).', payments: 'Pagamentos', received: 'Recebido', limit: 'Limite', noLimit: 'sem limite', until: 'Aceita até', forever: 'sem data', price: 'Preço', created: 'Criado em', range: (a: string, b: string) => `de ${a} a ${b}`, url: 'Endereço do link', openPage: 'Abrir página do link', qr: 'QR code do link', qrHint: 'Imprima e deixe no balcão: quem ler abre a página do link.', printQr: 'Imprimir QR code', deactivate: 'Desativar', deactivateConfirm: 'Desativar este link? A página passa a dizer que ele está desativado e não gera novos pagamentos. Checkouts já abertos continuam valendo.', activate: 'Reativar', activateConfirm: 'Reativar este link? A página volta a aceitar pagamentos.', checkouts: 'Checkouts deste link', invalidAmount: 'informe um valor como 10,50', wholeNumber: 'informe um número inteiro' },
  branding: { title: 'Marca nas páginas de pagamento', intro: 'Nome, cor e logo que o pagador vê nas páginas de pagamento e de links.', displayName: 'Nome exibido (vazio: o nome da loja)', color: 'Cor principal (#rrggbb; vazio: a cor padrão)', logo: 'Logo (PNG ou JPEG, até 100 KB)', currentLogo: 'Logo atual', newLogo: 'Novo logo (ainda não salvo)', removeLogo: 'Remover logo', keepLogo: 'Manter logo', save: 'Salvar marca', saved: 'Marca salva: as páginas de pagamento já a mostram.', preview: 'Prévia', readOnly: 'Só Donos e Desenvolvedores mudam a marca.', noLogo: 'Sem logo', readFailed: 'logo: não foi possível ler o arquivo' },
  subs: {
    title: 'Assinaturas', intro: 'Cobranças recorrentes por Pix Automático: o pagador autoriza uma vez no banco dele, e cada ciclo é debitado da conta dele no vencimento, sem QR Code a cada mês.',
    new: 'Nova assinatura', newTitle: 'Nova assinatura', statusFilter: 'Situação', customer: 'Cliente', amount: 'Valor', frequency: 'Frequência', nextDue: 'Próximo ciclo a cobrar', details: 'Detalhes',
    variable: (min: string) => `variável, mín. ${min}`,
    statuses: { CREATED: 'Aguardando autorização', ACTIVE: 'Ativa', REJECTED: 'Recusada pelo pagador', EXPIRED: 'Não autorizada a tempo', CANCELLED: 'Cancelada', COMPLETED: 'Concluída' } as Record<string, string>,
    frequencies: { WEEKLY: 'Semanal', MONTHLY: 'Mensal', QUARTERLY: 'Trimestral', SEMIANNUAL: 'Semestral', ANNUAL: 'Anual' } as Record<string, string>,
    journeys: { QR: 'QR Code de autorização', QR_WITH_PAYMENT: 'QR Code com o primeiro pagamento', PUSH: 'Pedido enviado ao banco do pagador' } as Record<string, string>,
    journeyHints: {
      QR: 'O pagador lê o QR Code no app do banco e autoriza as cobranças.',
      QR_WITH_PAYMENT: 'O pagador paga a primeira cobrança agora e, no mesmo QR Code, autoriza as próximas.',
      PUSH: 'Sem QR Code: o banco do pagador mostra o pedido na conta informada, e ele autoriza por lá.',
    } as Record<string, string>,
    retryPolicies: { NONE: 'Uma tentativa, no vencimento', THREE_IN_7_DAYS: 'Até 3 novas tentativas em 7 dias' } as Record<string, string>,
    outcomes: { PAID: 'Pago', INSUFFICIENT_FUNDS: 'Saldo insuficiente', SUBSCRIPTION_CANCELLED: 'Assinatura cancelada', NO_DEBIT: 'Nenhum débito até o último dia' } as Record<string, string>,
    endedBy: { MERCHANT: 'por você', PAYER: 'pelo pagador' } as Record<string, string>,
    authorization: 'Autorização do pagador', qr: 'QR Code de autorização', copyPaste: 'PIX copia e cola',
    waiting: { QR: 'Mostre este QR Code ao pagador: ele lê no app do banco e autoriza as cobranças.', QR_WITH_PAYMENT: 'O pagador lê este QR Code, paga a primeira cobrança e autoriza as próximas de uma vez.', PUSH: 'O pedido de autorização foi enviado ao banco do pagador; ele responde pelo app do banco.' } as Record<string, string>,
    authorizeBy: (d: string) => `Precisa ser autorizada antes de ${d}; depois disso, expira.`,
    autoRefresh: 'Esta página se atualiza sozinha quando o pagador responder.',
    firstCharge: 'Primeira cobrança (paga junto com a autorização)', openCharge: 'Ver cobrança',
    id: 'ID', taxId: 'CPF/CNPJ', journey: 'Como o pagador autoriza', start: 'Primeiro vencimento', end: 'Termina em', openEnded: 'sem data de término',
    contract: 'Contrato (o pagador vê)', retryPolicy: 'Se o débito falhar', authorizedAt: 'Autorizada em', endedAt: 'Encerrada em',
    cycles: 'Cobranças dos ciclos', dueDate: 'Vencimento', attempts: 'Tentativas de débito', noAttempts: 'nenhuma ainda', failedReason: 'Motivo da falha',
    fixedIssue: (days: number) => `O Pixgate emite a cobrança de cada ciclo sozinho, ${days} dias antes do vencimento; o banco do pagador debita no vencimento.`,
    variableIssue: 'Valor variável: você emite a cobrança de cada ciclo em “Cobrar um ciclo”; o banco do pagador debita no vencimento.',
        cancel: 'Cancelar assinatura', keep: 'Manter assinatura',
    cancelConfirm: 'Cancelar esta assinatura? Nenhum novo ciclo será cobrado e as cobranças ainda não pagas deixam de valer. Não dá para desfazer.',
    chargeTitle: 'Cobrar um ciclo', chargeHint: (min: string, days: number) => `Informe o valor deste ciclo (mínimo ${min}). A cobrança precisa sair ao menos ${days} dias antes do vencimento.`,
    chargeDue: 'Vencimento do ciclo', chargeAmount: 'Valor do ciclo (R$)', chargeSubmit: 'Emitir cobrança do ciclo', chargeIssued: 'Cobrança emitida: o banco do pagador debita no vencimento.',
    noCycleLeft: (days: number) => `Nenhum ciclo pode ser cobrado agora: a cobrança precisa sair ao menos ${days} dias antes do vencimento.`,
    upcoming: 'Próximos vencimentos', upcomingToCharge: 'Próximos ciclos a cobrar', upcomingHint: 'Vencimentos em fim de semana ou feriado passam para o próximo dia útil.', moved: (d: string) => `cairia em ${d}`,
    andSoOn: 'e assim por diante, até a assinatura ser cancelada', more: (n: number) => `e mais ${n} ciclo${n === 1 ? '' : 's'} até o último dia`, lastOne: 'último ciclo', previewEmpty: 'Escolha o primeiro vencimento para ver as datas.',
    customerPick: 'Cliente (pagador)', customerHint: 'O Pix Automático exige nome e CPF/CNPJ do pagador: clientes sem eles aparecem desativados. Complete o cadastro em Clientes.',
    customerSearch: 'Busque por nome, e-mail ou CPF/CNPJ', customerMissing: 'falta nome ou CPF/CNPJ', noCustomers: 'Nenhum cliente encontrado.',
    amountKind: 'Valor de cada ciclo', kinds: { fixed: 'Fixo, o mesmo todo ciclo', variable: 'Variável, você informa a cada ciclo' } as Record<string, string>,
    fixedAmount: 'Valor por ciclo (R$)', minAmount: 'Valor mínimo por ciclo (R$)', minAmountHint: 'O pagador autoriza débitos a partir deste valor.',
    startDate: 'Primeiro vencimento', startHint: (d: string, days: number) => `De ${d} em diante (${days} dias depois de hoje, horário de Brasília).`,
    endDate: 'Último dia (opcional)', endHint: 'Vazio: sem data de término.',
    contractField: 'Contrato (o pagador vê; até 35 caracteres)', description: 'Descrição (opcional; até 35 caracteres)',
    firstPayment: 'Valor do primeiro pagamento (R$)', firstPaymentHint: 'Pago agora, no mesmo QR Code da autorização.',
    payerAccount: 'Conta do pagador', ispb: 'ISPB do banco (8 dígitos)', branch: 'Agência (até 4 dígitos)', account: 'Conta (só números, com o dígito)',
    requestHours: 'Prazo para o pagador responder, em horas (vazio: 7 dias)', wholeHours: 'informe um número inteiro de horas',
    review: 'Revisar assinatura', confirmTitle: 'Confirme a assinatura', submit: 'Criar assinatura', invalidAmount: 'informe um valor como 29,90',
  },
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
  nav: { overview: 'Overview', charges: 'Charges', newCharge: 'New charge', checkouts: 'Checkouts', paymentLinks: 'Payment links', subscriptions: 'Subscriptions', customers: 'Customers', withdrawals: 'Withdrawals', webhooks: 'Webhooks', events: 'Events', statement: 'Statement', apiKeys: 'API keys', team: 'Team', account: 'My account', logout: 'Log out', menu: 'Menu', soon: 'soon' },
  common: { save: 'Save', cancel: 'Cancel', confirm: 'Confirm', close: 'Close', loading: 'Loading…', empty: 'Nothing here yet.', next: 'Next page', prev: 'Previous page', filter: 'Filter', clear: 'Clear', all: 'All', copy: 'Copy', copied: 'Copied!', back: 'Back', details: 'Details', created: 'Created', status: 'Status', amount: 'Amount', id: 'ID', actions: 'Actions', error: 'Something went wrong', shownOnce: 'Copy it now: it will not be shown again.', yes: 'Yes', no: 'No', name: 'Name', email: 'E-mail', role: 'Role', description: 'Description', refresh: 'Refresh', previewStale: 'The preview shows the last accepted draft' },
  login: { title: 'Log in to the dashboard', email: 'E-mail', password: 'Password', totp: 'Authenticator code (6 digits)', totpHint: 'Open your authenticator app and type the current code.', submit: 'Log in', expired: 'Your session ended. Log in again to continue.', demoHint: 'First time? The demo user is printed in the terminal when Pixgate starts.' },
  invite: { title: 'Accept invitation', intro: 'Choose a password to log in to the dashboard.', name: 'Your name (optional)', password: 'Password (12 to 128 characters)', confirm: 'Repeat the password', mismatch: 'The passwords do not match', submit: 'Create access', done: 'Access created. Log in with your e-mail and the password you chose.', goLogin: 'Go to login' },
  overview: { title: 'Overview', available: 'Available', pending: 'Pending', blocked: 'Blocked', availableHint: 'Can be withdrawn or used for refunds', pendingHint: 'Reserved for withdrawals in progress', blockedHint: 'Held by disputes (MED)', chart: 'Received per day (last 30 days)', received: 'Received', totalReceived: 'Total over 30 days', fromCharges: 'computed from paid charges', activeSubscriptions: 'Active subscriptions', seeSubscriptions: 'See subscriptions' },
  charges: { title: 'Charges', new: 'New charge', statusFilter: 'Status', idFilter: 'Charge ID', emailFilter: 'Customer e-mail', customer: 'Customer', expiresAt: 'Expires', paidAt: 'Paid', fee: 'Fee', net: 'Net', txid: 'TXID', end2endId: 'End-to-end ID', qr: 'PIX QR code', copyPaste: 'PIX copy and paste', history: 'History', refund: 'Refund', refundConfirm: 'Refund the whole amount of this charge? It leaves your available balance.', simulate: 'Simulate payment', simulateHint: 'Test mode: pays this charge in the simulator.', refundState: 'Refund', open: 'Open', notFound: 'Charge not found' },
  status: { PENDING: 'Pending', PAID: 'Paid', EXPIRED: 'Expired', REFUNDED: 'Refunded', DISPUTED: 'Disputed', PROCESSING: 'Processing', COMPLETED: 'Completed', FAILED: 'Failed', SUCCEEDED: 'Delivered', ACTIVE: 'Active', INACTIVE: 'Deactivated' },
  history: { created: 'Created', paid: 'Paid', expired: 'Expired', refundRequested: 'Refund requested', refundCompleted: 'Refund completed', refundFailed: 'Refund failed', disputed: 'Dispute opened' },
  newCharge: { title: 'New charge', amount: 'Amount (R$)', amountHint: 'At least R$ 1,00', description: 'Description (optional)', customerId: 'Customer ID (optional)', expiresIn: 'Valid for minutes (optional)', submit: 'Create charge', invalidAmount: 'amount: type an amount such as 10,50' },
  checkouts: { title: 'Checkouts', intro: 'Carts paid on the payment page Pixgate serves; each owns one PIX charge.', statusFilter: 'Status', linkFilter: 'Payment link ID', customer: 'Customer', items: 'Items', item: 'Item', quantity: 'Qty', unitPrice: 'Unit price', lineTotal: 'Amount', total: 'Total', payPage: 'Payment page', openPayPage: 'Open page', open: 'Open', details: 'Details', externalId: 'External ID', paymentLink: 'Payment link', completionUrl: 'Completion URL', returnUrl: 'Return URL', expiresAt: 'Expires', paidAt: 'Paid', charge: 'The checkout\'s charge', chargeHint: 'Fee, payment, refund and dispute are the charge\'s.', openCharge: 'Open charge', fee: 'Fee', net: 'Net', end2endId: 'End-to-end ID', txid: 'TXID', refund: 'Refund', refundConfirm: 'Refund the whole amount of this checkout? It leaves your available balance and goes back to the payer.', refundState: 'Refund' },
  links: { title: 'Payment links', intro: 'A reusable link: every payer who opens it gets a checkout of their own.', new: 'New link', newTitle: 'New payment link', name: 'Name (shown on the page)', namePlaceholder: 'Link name', description: 'Description (optional)', priceKind: 'Price', kinds: { amount: 'Fixed amount', range: 'The payer types the amount', items: 'Items' }, amount: 'Amount (R$)', min: 'Minimum (R$)', max: 'Maximum (R$)', itemName: 'Item', itemQty: 'Quantity', itemPrice: 'Unit price (R$)', addItem: 'Add item', removeItem: 'Remove item', customerFields: 'Details the payer fills in', fields: { name: 'Name', email: 'E-mail', taxId: 'CPF or CNPJ', phone: 'Phone' }, limits: 'Limits (optional)', maxPayments: 'Maximum payments', activeUntil: 'Takes payments until the day (Brasília time)', completionUrl: 'After paying, send the payer to (URL, optional)', checkoutMinutes: 'Time to pay each checkout, in minutes (5 to 1440; default 60)', submit: 'Create link', preview: 'Preview of the link page', previewHint: 'The very page payers open, drawn by the server (phone width).', payments: 'Payments', received: 'Received', limit: 'Limit', noLimit: 'no limit', until: 'Takes payments until', forever: 'no end date', price: 'Price', created: 'Created', range: (a: string, b: string) => `${a} to ${b}`, url: 'Link address', openPage: 'Open the link page', qr: 'QR code of the link', qrHint: 'Print it for the counter: whoever scans it opens the link page.', printQr: 'Print QR code', deactivate: 'Deactivate', deactivateConfirm: 'Deactivate this link? Its page then says it is deactivated and starts no new payment. Checkouts already open stay valid.', activate: 'Reactivate', activateConfirm: 'Reactivate this link? Its page takes payments again.', checkouts: 'Checkouts of this link', invalidAmount: 'type an amount such as 10,50', wholeNumber: 'type a whole number' },
  branding: { title: 'Branding of the payment pages', intro: 'The name, colour and logo payers see on the payment and link pages.', displayName: 'Display name (empty: the store name)', color: 'Main colour (#rrggbb; empty: the default colour)', logo: 'Logo (PNG or JPEG, up to 100 KB)', currentLogo: 'Current logo', newLogo: 'New logo (not saved yet)', removeLogo: 'Remove logo', keepLogo: 'Keep logo', save: 'Save branding', saved: 'Branding saved: the payment pages show it now.', preview: 'Preview', readOnly: 'Only Owners and Developers change the branding.', noLogo: 'No logo', readFailed: 'logo: the file could not be read' },
  subs: {
    title: 'Subscriptions', intro: 'Recurring charges on Pix Automático: the payer authorizes once at their bank, and each cycle is debited from their account on its due date, with no QR code each month.',
    new: 'New subscription', newTitle: 'New subscription', statusFilter: 'Status', customer: 'Customer', amount: 'Amount', frequency: 'Frequency', nextDue: 'Next cycle to charge', details: 'Details',
    variable: (min: string) => `variable, min. ${min}`,
    statuses: { CREATED: 'Waiting for authorization', ACTIVE: 'Active', REJECTED: 'Refused by the payer', EXPIRED: 'Not authorized in time', CANCELLED: 'Cancelled', COMPLETED: 'Completed' },
    frequencies: { WEEKLY: 'Weekly', MONTHLY: 'Monthly', QUARTERLY: 'Quarterly', SEMIANNUAL: 'Every 6 months', ANNUAL: 'Yearly' },
    journeys: { QR: 'Authorization QR code', QR_WITH_PAYMENT: 'QR code with the first payment', PUSH: 'Request sent to the payer\'s bank' },
    journeyHints: {
      QR: 'The payer scans the QR code in their bank\'s app and authorizes the charges.',
      QR_WITH_PAYMENT: 'The payer pays the first charge now and, with the same QR code, authorizes the next ones.',
      PUSH: 'No QR code: the payer\'s bank shows the request in the account given, and they authorize it there.',
    },
    retryPolicies: { NONE: 'One attempt, on the due date', THREE_IN_7_DAYS: 'Up to 3 more attempts in 7 days' },
    outcomes: { PAID: 'Paid', INSUFFICIENT_FUNDS: 'Insufficient funds', SUBSCRIPTION_CANCELLED: 'Subscription cancelled', NO_DEBIT: 'No debit by the last day' },
    endedBy: { MERCHANT: 'by you', PAYER: 'by the payer' },
    authorization: 'The payer\'s authorization', qr: 'Authorization QR code', copyPaste: 'PIX copy and paste',
    waiting: { QR: 'Show this QR code to the payer: they scan it in their bank\'s app and authorize the charges.', QR_WITH_PAYMENT: 'The payer scans this QR code, pays the first charge and authorizes the next ones at once.', PUSH: 'The authorization request was sent to the payer\'s bank; they answer in their bank\'s app.' },
    authorizeBy: (d: string) => `Must be authorized before ${d}; after that it expires.`,
    autoRefresh: 'This page updates by itself when the payer answers.',
    firstCharge: 'First charge (paid with the authorization)', openCharge: 'Open charge',
    id: 'ID', taxId: 'CPF/CNPJ', journey: 'How the payer authorizes', start: 'First due date', end: 'Ends on', openEnded: 'no end date',
    contract: 'Contract (the payer sees it)', retryPolicy: 'If a debit fails', authorizedAt: 'Authorized', endedAt: 'Ended',
    cycles: 'Cycle charges', dueDate: 'Due date', attempts: 'Debit attempts', noAttempts: 'none yet', failedReason: 'Failure reason',
    fixedIssue: (days: number) => `Pixgate issues each cycle's charge by itself, ${days} days before it is due; the payer's bank debits it on the due date.`,
    variableIssue: 'Variable amount: you issue each cycle\'s charge under “Charge a cycle”; the payer\'s bank debits it on the due date.',
        cancel: 'Cancel subscription', keep: 'Keep subscription',
    cancelConfirm: 'Cancel this subscription? No further cycle is charged and the charges not paid yet stop being valid. This cannot be undone.',
    chargeTitle: 'Charge a cycle', chargeHint: (min: string, days: number) => `Type this cycle's amount (at least ${min}). The charge must go out at least ${days} days before its due date.`,
    chargeDue: 'Cycle due date', chargeAmount: 'Cycle amount (R$)', chargeSubmit: 'Issue the cycle\'s charge', chargeIssued: 'Charge issued: the payer\'s bank debits it on the due date.',
    noCycleLeft: (days: number) => `No cycle can be charged now: a charge must go out at least ${days} days before its due date.`,
    upcoming: 'Next due dates', upcomingToCharge: 'Next cycles to charge', upcomingHint: 'A due date on a weekend or holiday moves to the next business day.', moved: (d: string) => `would fall on ${d}`,
    andSoOn: 'and so on, until the subscription is cancelled', more: (n: number) => `and ${n} more cycle${n === 1 ? '' : 's'} up to the last day`, lastOne: 'last cycle', previewEmpty: 'Choose the first due date to see the dates.',
    customerPick: 'Customer (payer)', customerHint: 'Pix Automático needs the payer\'s name and CPF/CNPJ: customers without them are shown disabled. Complete them under Customers.',
    customerSearch: 'Search by name, e-mail or CPF/CNPJ', customerMissing: 'name or CPF/CNPJ missing', noCustomers: 'No customer found.',
    amountKind: 'Amount of each cycle', kinds: { fixed: 'Fixed, the same every cycle', variable: 'Variable, you give it each cycle' },
    fixedAmount: 'Amount per cycle (R$)', minAmount: 'Minimum amount per cycle (R$)', minAmountHint: 'The payer authorizes debits from this amount up.',
    startDate: 'First due date', startHint: (d: string, days: number) => `From ${d} on (${days} days after today, Brasília time).`,
    endDate: 'Last day (optional)', endHint: 'Empty: no end date.',
    contractField: 'Contract (the payer sees it; up to 35 characters)', description: 'Description (optional; up to 35 characters)',
    firstPayment: 'First payment amount (R$)', firstPaymentHint: 'Paid now, with the same QR code as the authorization.',
    payerAccount: 'The payer\'s account', ispb: 'Bank ISPB (8 digits)', branch: 'Branch (up to 4 digits)', account: 'Account (digits only, with its check digit)',
    requestHours: 'Time for the payer to answer, in hours (empty: 7 days)', wholeHours: 'type a whole number of hours',
    review: 'Review subscription', confirmTitle: 'Confirm the subscription', submit: 'Create subscription', invalidAmount: 'type an amount such as 29,90',
  },
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
