import { designFor } from '../render';
import { PLATFORM_TEMPLATES } from './template.service';

describe('the platform templates', () => {
  it('keeps the defaults of each design equal to its platform template', () => {
    for (const template of PLATFORM_TEMPLATES) {
      const design = designFor(template);
      expect(design.slug).toBe(template.slug);
      expect({
        primary_color: design.defaults.primaryColor,
        theme: design.defaults.theme,
        font_family: design.defaults.fontFamily,
      }).toEqual(template.defaultSettings);
    }
  });
});
