/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/luma.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/luma";

conformanceSuite(subjects);
