export { loadSkills, parseSkillFile, skillListing } from "./load-skills.js";
export type { Skill, SkillSources } from "./load-skills.js";
