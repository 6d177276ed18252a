/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/google.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/google";

conformanceSuite(subjects);
