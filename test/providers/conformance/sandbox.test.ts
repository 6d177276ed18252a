/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/sandbox.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/sandbox";

conformanceSuite(subjects);
