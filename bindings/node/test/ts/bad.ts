// Must not type-check: the declarations say what classify() takes and returns.
import { classify } from "shcard";
const n: number = classify(42).kind;
void n;
