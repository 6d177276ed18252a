/** The service's health for every door (REST `GET /v1/status`, the console's Status page). */
export { serviceStatus } from "../health/status";
