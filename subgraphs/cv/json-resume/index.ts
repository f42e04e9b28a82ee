/**
 * JSON Resume: a CV's document to the JSON Resume standard and back, with what the standard has
 * no field for kept aside (ResumeExtra). Pure mapping; what the other folders may use.
 */
export { fromJsonResume, toJsonResume, type ResumeExtra } from './json-resume';
