/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/fal.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/fal";

conformanceSuite(subjects);
