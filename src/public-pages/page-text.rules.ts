/** The public pages speak pt-BR unless the payer asks for English (`?lang=en`, else Accept-Language). */
export type Lang = 'pt' | 'en';

export function pickLang(query: unknown, acceptLanguage: string | undefined): Lang {
  const asked = (query as { lang?: unknown } | undefined)?.lang;
  if (asked === 'en' || asked === 'pt') return asked;
  const ranked = (acceptLanguage ?? '').split(',').map((part, i) => {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(params.find((p) => p.trim().startsWith('q='))?.split('=')[1] ?? 1);
    return { tag, q: Number.isFinite(q) ? q : 0, i };
  }).filter((l) => l.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  const first = ranked.find((l) => l.tag.startsWith('pt') || l.tag.startsWith('en'));
  return first?.tag.startsWith('en') ? 'en' : 'pt';
}

const pt = {
  htmlLang: 'pt-BR',
  payTitle: 'Pagamento',
  payHeading: 'Pague com PIX',
  order: 'Seu pedido',
  item: 'Item', quantity: 'Qtd.', price: 'Valor',
  total: 'Total',
  hello: (name: string) => `Olá, ${name}!`,
  scan: 'Abra o app do seu banco, escolha PIX e leia o QR code:',
  qrAlt: 'QR code do PIX para pagar',
  orCopy: 'Ou copie o código PIX (copia e cola):',
  codeLabel: 'Código PIX copia e cola',
  copy: 'Copiar código',
  copied: 'Código copiado!',
  timeLeft: 'Tempo para pagar',
  expiresAt: (when: string) => `Válido até ${when} (horário de Brasília).`,
  statusLabel: 'Situação',
  waiting: 'Aguardando pagamento',
  waitingHelp: 'Esta página se atualiza sozinha quando o pagamento chegar.',
  checkAgain: 'Verificar pagamento',
  paid: 'Pagamento confirmado',
  paidHelp: 'Recebemos seu PIX. Obrigado!',
  continue: 'Voltar para a loja',
  redirecting: 'Você será levado de volta à loja em 3 segundos.',
  expired: 'Este pagamento expirou',
  expiredHelp: 'O prazo para pagar acabou e o código PIX não vale mais. Nada foi cobrado.',
  newCheckout: 'Gerar novo pagamento',
  refunded: 'Pagamento devolvido',
  refundedHelp: 'O valor deste pagamento foi devolvido para a sua conta.',
  disputed: 'Pagamento em análise',
  disputedHelp: 'Este pagamento está em análise pelo banco. A loja entrará em contato.',
  simulate: 'Simular pagamento',
  simulateHelp: 'Ambiente de testes: nenhum dinheiro de verdade é movimentado.',
  back: 'Voltar',
  notFoundTitle: 'Página não encontrada',
  notFoundHelp: 'Este link de pagamento não existe. Confira o endereço com a loja.',
  language: 'Idioma',
  otherLang: 'English',
  poweredBy: 'Pagamento seguro via PIX',
  // The link page
  linkPay: 'Pagar com PIX',
  amountLabel: 'Valor (R$)',
  amountHint: (min: string, max: string) => `Entre ${min} e ${max}.`,
  nameLabel: 'Nome completo', emailLabel: 'E-mail', taxIdLabel: 'CPF ou CNPJ', phoneLabel: 'Telefone (com DDD)',
  yourData: 'Seus dados',
  fixErrors: 'Corrija os campos indicados abaixo.',
  problems: {
    required: 'Preencha este campo.', invalid: 'Valor inválido.', tooLong: 'Texto longo demais.',
    belowMin: (v: string) => `O valor mínimo é ${v}.`, aboveMax: (v: string) => `O valor máximo é ${v}.`,
    invalidCpf: 'CPF inválido: confira os números.', invalidCnpj: 'CNPJ inválido: confira os números.',
    invalidEmail: 'E-mail inválido.', invalidPhone: 'Telefone inválido: use DDD e número.', invalidAmount: 'Digite um valor como 1.234,56.',
  },
  unavailable: {
    inactive: 'Este link de pagamento está desativado.',
    ended: 'Este link de pagamento não está mais disponível.',
    soldOut: 'Este link já atingiu o limite de pagamentos.',
    held: 'Todas as vagas deste link estão reservadas por pagamentos em andamento. Tente de novo mais tarde.',
  },
  tooMany: 'Muitas tentativas',
  tooManyHelp: (s: number) => `Aguarde ${s} segundos e tente de novo.`,
  unavailableTitle: 'Pagamento indisponível',
  errorHelp: 'Não foi possível gerar o pagamento agora. Tente de novo em instantes.',
};
export type Texts = typeof pt;

const en: Texts = {
  htmlLang: 'en',
  payTitle: 'Payment',
  payHeading: 'Pay with PIX',
  order: 'Your order',
  item: 'Item', quantity: 'Qty', price: 'Price',
  total: 'Total',
  hello: (name: string) => `Hello, ${name}!`,
  scan: 'Open your bank app, choose PIX and scan the QR code:',
  qrAlt: 'PIX QR code to pay',
  orCopy: 'Or copy the PIX code (copy and paste):',
  codeLabel: 'PIX copy-and-paste code',
  copy: 'Copy code',
  copied: 'Code copied!',
  timeLeft: 'Time left to pay',
  expiresAt: (when: string) => `Valid until ${when} (Brasília time).`,
  statusLabel: 'Status',
  waiting: 'Waiting for payment',
  waitingHelp: 'This page updates by itself when the payment arrives.',
  checkAgain: 'Check payment',
  paid: 'Payment confirmed',
  paidHelp: 'We received your PIX. Thank you!',
  continue: 'Back to the store',
  redirecting: 'You will be taken back to the store in 3 seconds.',
  expired: 'This payment has expired',
  expiredHelp: 'The time to pay is over and the PIX code no longer works. Nothing was charged.',
  newCheckout: 'Start a new payment',
  refunded: 'Payment returned',
  refundedHelp: 'The amount of this payment was returned to your account.',
  disputed: 'Payment under review',
  disputedHelp: 'This payment is under review by the bank. The store will contact you.',
  simulate: 'Simulate payment',
  simulateHelp: 'Test environment: no real money moves.',
  back: 'Back',
  notFoundTitle: 'Page not found',
  notFoundHelp: 'This payment link does not exist. Check the address with the store.',
  language: 'Language',
  otherLang: 'Português',
  poweredBy: 'Secure payment via PIX',
  linkPay: 'Pay with PIX',
  amountLabel: 'Amount (R$)',
  amountHint: (min: string, max: string) => `Between ${min} and ${max}.`,
  nameLabel: 'Full name', emailLabel: 'E-mail', taxIdLabel: 'CPF or CNPJ (Brazilian tax id)', phoneLabel: 'Phone (with area code)',
  yourData: 'Your details',
  fixErrors: 'Please fix the fields marked below.',
  problems: {
    required: 'Please fill in this field.', invalid: 'Invalid value.', tooLong: 'Too long.',
    belowMin: (v: string) => `The minimum is ${v}.`, aboveMax: (v: string) => `The maximum is ${v}.`,
    invalidCpf: 'Invalid CPF: check the digits.', invalidCnpj: 'Invalid CNPJ: check the digits.',
    invalidEmail: 'Invalid e-mail.', invalidPhone: 'Invalid phone: include the area code.', invalidAmount: 'Type an amount such as 1234.56.',
  },
  unavailable: {
    inactive: 'This payment link is deactivated.',
    ended: 'This payment link is no longer available.',
    soldOut: 'This link has reached its payment limit.',
    held: 'Every place of this link is held by a payment in progress. Please try again later.',
  },
  tooMany: 'Too many attempts',
  tooManyHelp: (s: number) => `Wait ${s} seconds and try again.`,
  unavailableTitle: 'Payment unavailable',
  errorHelp: 'The payment could not be started now. Please try again in a moment.',
};

export const texts = (lang: Lang): Texts => (lang === 'en' ? en : pt);
