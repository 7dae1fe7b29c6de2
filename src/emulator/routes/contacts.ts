import type { EmulatorModule } from '../types.js';

// Placeholder: contact lists, contacts and import jobs of document 2 go here.
export const contactsModule: EmulatorModule = { name: 'contacts', register() {} };
