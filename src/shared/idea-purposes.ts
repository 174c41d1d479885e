// The purposes an idea can serve, per locale: seeded once, answered by /idea/purposes.
export const purposeTexts: Record<'ru' | 'en', Array<[string, string]>> = {
  ru: [
    ['Улучшение процессов', 'Как сделать работу быстрее и проще'],
    ['Экономия затрат', 'Как сократить расходы компании'],
    ['Новый продукт или услуга', 'Что предложить нашим клиентам'],
    ['Условия труда', 'Офис, рабочие места, график'],
    ['Корпоративная культура', 'События, традиции, общение'],
    ['Охрана труда и безопасность', 'Как избежать травм и аварий'],
  ],
  en: [
    ['Process improvement', 'Making work faster and simpler'],
    ['Cost saving', "Cutting the company's costs"],
    ['New product or service', 'Something new for our customers'],
    ['Workplace', 'Office, desks, working hours'],
    ['Company culture', 'Events, traditions, communication'],
    ['Health and safety', 'Avoiding injuries and accidents'],
  ],
};
