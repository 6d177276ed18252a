/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/minimax.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/minimax";

conformanceSuite(subjects);
