/**
 * Content safety as the doors reach it: the categories and a tenant's policy.
 */
export { CATEGORIES } from "../safety/categories";
export { BLOCK_THRESHOLD, SafetyPolicyInput } from "../safety/policy";
export { getSafetyPolicy, setSafetyPolicy } from "./safety-policy";
