/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/kie.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/kie";

conformanceSuite(subjects);
