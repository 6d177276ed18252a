/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/ark.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/ark";

conformanceSuite(subjects);
