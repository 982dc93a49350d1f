/**
 * Editor helpers shared by the s7twin nodes' edit dialogs (served by Node-RED from this module's
 * resources folder, loaded by each node's HTML file).
 *
 * A flow may hold an environment reference, `${NAME}`, in any property: Node-RED replaces it with
 * the variable's value when the flow starts. Text fields keep such a value as typed; a select or
 * a checkbox cannot show it, and a checkbox would turn it into true or false on Done. `choice`
 * makes such a field a typed input offering its own choices or an environment variable, so
 * open → Done → deploy leaves the flow as it was.
 */
(function () {
  'use strict';
  if (window.s7twinEditor) return;

  const ENV_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

  /**
   * The variable a value refers to, or null.
   * @param {*} value
   * @returns {string|null}
   */
  function envName(value) {
    const m = ENV_REF.exec(typeof value === 'string' ? value.trim() : '');
    return m ? m[1] : null;
  }

  /**
   * A choice field in the edit dialog: its element is `<input type="text" id="<prefix>-<prop>-choice">`
   * (not `<prefix>-<prop>`, which the editor would read back as text).
   * @param {object} node the node being edited (`this` in oneditprepare)
   * @param {string} prop the property
   * @param {object} opts
   * @param {string} [opts.prefix] 'node-input' (default) or 'node-config-input'
   * @param {boolean} [opts.bool] a yes/no choice (the property holds true or false)
   * @param {{value: string, label: string}[]} [opts.options] the choices of a select
   * @param {string} [opts.label] the name of the choices' type in the type menu
   */
  function choice(node, prop, opts) {
    const $in = $('#' + (opts.prefix || 'node-input') + '-' + prop + '-choice');
    const value = node[prop];
    let own;
    if (opts.bool) {
      own = 'bool';
    } else {
      const options = opts.options.slice();
      // A value that is not one of the choices (a hand-edited flow) is shown and kept as it is.
      if (value !== undefined && !envName(value) && !options.some(function (o) { return o.value === String(value); })) {
        options.push({ value: String(value), label: String(value) });
      }
      own = { value: 's7twin-choice', label: opts.label || 'choice', options: options };
    }
    $in.typedInput({ types: [own, 'env'] });
    const name = envName(value);
    if (name) {
      $in.typedInput('type', 'env');
      $in.typedInput('value', name);
    } else {
      $in.typedInput('type', opts.bool ? 'bool' : 's7twin-choice');
      $in.typedInput('value', value === undefined ? '' : String(value));
    }
  }

  /**
   * Store a choice field's value on the node (call from oneditsave): `${NAME}` for an environment
   * variable, true/false for a yes/no choice, else the chosen value.
   * @param {object} node
   * @param {string} prop
   * @param {object} opts as for `choice`
   */
  function saveChoice(node, prop, opts) {
    const $in = $('#' + (opts.prefix || 'node-input') + '-' + prop + '-choice');
    const type = $in.typedInput('type');
    const value = $in.typedInput('value');
    if (type === 'env') node[prop] = '${' + value.trim() + '}';
    else if (opts.bool) node[prop] = value === 'true' || value === true;
    else node[prop] = value;
  }

  /**
   * The Type field of the link in and link out nodes: an endpoint (server) or the edge's link
   * (client), each with its own configuration node row (`.s7t-server-row`, `.s7t-client-row`).
   * Rows of the type not chosen are hidden; an environment variable shows both.
   * @param {object} node
   * @param {string} ns the node type, whose catalog holds option.mode.server/client
   */
  function linkMode(node, ns) {
    const opts = linkModeOptions(node, ns);
    choice(node, 'mode', opts);
    const $in = $('#node-input-mode-choice');
    function show() {
      const env = $in.typedInput('type') === 'env';
      const mode = $in.typedInput('value');
      $('.s7t-server-row').toggle(env || mode === 'server');
      $('.s7t-client-row').toggle(env || mode === 'client');
    }
    $in.on('change', show);
    show();
  }

  /**
   * Store the Type field (oneditsave); a link that is not used by the chosen type is cleared.
   * @param {object} node
   * @param {string} ns
   */
  function saveLinkMode(node, ns) {
    saveChoice(node, 'mode', linkModeOptions(node, ns));
    if (node.mode === 'server') $('#node-input-client').val('_ADD_');
    else if (node.mode === 'client') $('#node-input-server').val('_ADD_');
  }

  function linkModeOptions(node, ns) {
    return { options: ['server', 'client'].map(function (v) { return { value: v, label: node._(ns + '.option.mode.' + v) }; }) };
  }

  window.s7twinEditor = { envName: envName, choice: choice, saveChoice: saveChoice, linkMode: linkMode, saveLinkMode: saveLinkMode };
})();
