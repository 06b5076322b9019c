import { add } from "./math.js";

export function greet(name: string): string {
  return `Hello, ${name}! 2 + 2 = ${add(2, 2)}`;
}
