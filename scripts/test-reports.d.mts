// Types for test-reports.mjs, so TypeScript tests can import it.
export interface TestedPackage {
  name: string;
  folder: string;
}
export interface TestTally {
  passed: number;
  failed: number;
  skipped: number;
  problems: string[];
}
export const TEST_REPORT_FILE: string;
export const TEST_REPORT_ARGUMENTS: string[];
export function testedPackages(root?: string): TestedPackage[];
export function removeTestReports(packages: TestedPackage[]): void;
export function tallyTestReports(packages: TestedPackage[]): TestTally;
export function formatTestTally(tally: TestTally): string;
