/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/bfl.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/bfl";

conformanceSuite(subjects);
