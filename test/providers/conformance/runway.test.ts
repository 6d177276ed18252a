/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/runway.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/runway";

conformanceSuite(subjects);
