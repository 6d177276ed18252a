/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/replicate.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/replicate";

conformanceSuite(subjects);
