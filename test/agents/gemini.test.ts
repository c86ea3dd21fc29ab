// The real `gemini` CLI against the loopback mock model (scenarios in compat-suite.ts).
import { compatSuite } from './compat-suite.ts';

compatSuite('gemini');
